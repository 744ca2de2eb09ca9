"""Requests to the server extension's REST API, for the tests that start a Jupyter server through pytest_jupyter's
plugin (a module's ``pytest_plugins = ["pytest_jupyter.jupyter_server"]``, which brings ``jp_fetch``).  The fixtures
such a test needs besides, ``jp_server_config`` (the extension enabled) and ``store_path`` (the run store the server
reads), are tests/conftest.py's."""

from __future__ import annotations

import json

import pytest
import tornado.httpclient

API = "compile-profile/api"


async def fetch_json(jp_fetch, *parts, **kwargs):
    """The JSON body of a request that succeeds, served as JSON."""
    response = await jp_fetch(*parts, **kwargs)
    assert response.headers["Content-Type"].startswith("application/json")
    return json.loads(response.body)


async def expect_status(jp_fetch, status, *parts, **kwargs):
    """A request that fails with ``status``: the error, for its response."""
    with pytest.raises(tornado.httpclient.HTTPClientError) as info:
        await jp_fetch(*parts, **kwargs)
    assert info.value.code == status, info.value
    return info.value


async def api_answer(jp_fetch, *parts: str, **kwargs) -> tuple[int, dict]:
    """The status and JSON body (``{}`` for none) of a request to ``API/parts``, whether it succeeds or fails."""
    try:
        response = await jp_fetch(API, *parts, **kwargs)
    except tornado.httpclient.HTTPClientError as exc:
        assert exc.response is not None
        return exc.code, json.loads(exc.response.body)
    return response.code, json.loads(response.body) if response.body else {}
