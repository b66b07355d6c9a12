"""The long-running service: one warm QueryService behind HTTP (FastAPI on
uvicorn, ``http.py``) and the Model Context Protocol (``mcp.py``)."""

from freshindex.service.core import QueryService, Updater
from freshindex.service.http import serve

__all__ = ["QueryService", "Updater", "serve"]
