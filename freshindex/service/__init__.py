"""The long-running service: one warm QueryService behind HTTP (FastAPI on
uvicorn, ``http.py``) and the Model Context Protocol (``mcp.py``)."""

from freshindex.service.http import serve
from freshindex.service.warm import QueryService, Updater

__all__ = ["QueryService", "Updater", "serve"]
