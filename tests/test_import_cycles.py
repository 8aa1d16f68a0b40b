"""The import graph has no cycle: a module never needs, through others, what needs it.

Built with grimp, the library import-linter reads the contracts with, over the packages
and the benchmarks (a namespace package, run as ``python -m benchmarks.…``). A cycle is
a strongly connected set of two or more modules; each is reported with its imports.
"""

from __future__ import annotations

import grimp

PACKAGES = ("domain", "infra", "tgbot", "benchmarks")


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every set of modules that import one another, round and round, each sorted.

    >>> graph = grimp.ImportGraph()
    >>> for importer, imported in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]:
    ...     graph.add_import(importer=importer, imported=imported)
    >>> cycles(graph)
    [['a', 'b', 'c']]
    """
    modules = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in modules}
    # Tarjan's strongly connected components, iterative (no recursion limit).
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in modules:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, next_edge = work.pop()
            if next_edge == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            for position in range(next_edge, len(edges[node])):
                other = edges[node][position]
                if other not in index:
                    work.append((node, position + 1))
                    work.append((other, 0))
                    break
                if other in on_stack:
                    low[node] = min(low[node], index[other])
            else:
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
    return sorted(found)


def described(graph: grimp.ImportGraph, cycle: list[str]) -> list[str]:
    return [
        f"{a} -> {b} (line {detail['line_number']})"
        for a in cycle
        for b in sorted(graph.find_modules_directly_imported_by(a) & set(cycle))
        for detail in graph.get_import_details(importer=a, imported=b)
    ]


def test_the_graph_covers_the_packages_and_the_benchmarks() -> None:
    graph = grimp.build_graph(*PACKAGES)
    assert {
        "domain.decide",
        "infra.bootstrap",
        "tgbot.telegram.app",
        "benchmarks.bench_bot",
    } <= set(graph.modules)


def test_no_module_imports_itself_through_others() -> None:
    graph = grimp.build_graph(*PACKAGES)
    assert [described(graph, c) for c in cycles(graph)] == []
