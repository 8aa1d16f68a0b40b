"""A small web server of the Mini App's own: Starlette under uvicorn, in the caller's
event loop (beside the bot), on a local port. The offline demo and the tests serve the
Mini App with it; in production its routes are mounted into the web process instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Sequence

import uvicorn
from starlette.applications import Starlette
from starlette.routing import BaseRoute

STARTUP_SECONDS = 10.0
STOP_SECONDS = 5.0


@contextlib.asynccontextmanager
async def serving(
    routes: Sequence[BaseRoute], host: str = "127.0.0.1", port: int = 0
) -> AsyncIterator[str]:
    """Serve ``routes`` until the block ends; yields the base URL (``http://host:port``)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    app = Starlette(routes=list(routes))
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]), name="miniapp-server")
    try:
        async with asyncio.timeout(STARTUP_SECONDS):
            while not server.started:
                if task.done():
                    task.result()  # raises what stopped it
                await asyncio.sleep(0.01)
        yield f"http://{host}:{sock.getsockname()[1]}"
    finally:
        # Open event streams never end by themselves: do not wait for them.
        server.should_exit = server.force_exit = True
        try:
            await asyncio.wait_for(task, STOP_SECONDS)
        except (TimeoutError, asyncio.CancelledError):
            task.cancel()
        sock.close()
