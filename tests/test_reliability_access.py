"""The REST API against requests from other sites and hostile ids, through a real jupyter_server.

test_server covers requests without (or with a wrong) token and a first set of
invalid ids.  Here: a logged-in browser tricked by another site (cross-origin
reads and writes with the session cookie, no XSRF token, a rebinding Host), and
ids and kernel names built to escape a path or a SQL string, huge or odd ones.
None of them may reach the data or answer 500.
"""

from __future__ import annotations

import json
import urllib.parse

import pytest
from compile_profile.store import RunStore
from render_fixtures import cpu_run
from server_requests import API

pytest_plugins = ["pytest_jupyter.jupyter_server"]

EVIL = "http://evil.example"


@pytest.fixture
def store(store_path):
    with RunStore(store_path) as s:
        run = cpu_run()
        s.put(run)
        yield s


@pytest.fixture
def request_raw(http_server_client, jp_base_url):
    """Send a request as a browser would, with exactly the headers given; return (status, body, response)."""

    async def send(path: str, *, method: str = "GET", headers: dict | None = None):
        url = jp_base_url.rstrip("/") + "/" + path
        response = await http_server_client.fetch(
            url,
            method=method,
            headers=headers or {},
            raise_error=False,
            follow_redirects=False,
            allow_nonstandard_methods=True,
        )
        return response.code, response.body.decode("utf-8", "replace"), response

    return send


async def log_in(request_raw, jp_auth_header) -> dict[str, str]:
    """The cookies a browser holds after opening the lab with its token: a logged-in session."""
    token = jp_auth_header["Authorization"].split()[1]
    cookies: dict[str, str] = {}
    # The token in the URL logs the browser in; a page with a form (the login page) hands out the XSRF cookie.
    for path in (f"{API}/changes?token={urllib.parse.quote(token)}", "login"):
        _, _, response = await request_raw(path)
        cookies.update(c.split(";")[0].split("=", 1) for c in response.headers.get_list("Set-Cookie"))
    assert "_xsrf" in cookies and any(name.startswith("username-") for name in cookies)
    return cookies


def cookie_header(cookies: dict) -> str:
    return "; ".join(f"{k}={v}" for k, v in cookies.items())


def _path(*parts: str) -> str:
    return "/".join([API, *(urllib.parse.quote(p, safe="") for p in parts)])


async def test_another_site_without_credentials_gets_nothing(request_raw, store):
    run_id = cpu_run().id
    for path in (_path("runs"), _path("runs", run_id), _path("runs", run_id, "figures"), _path("changes")):
        status, body, _ = await request_raw(path, headers={"Origin": EVIL})
        assert status in (403, 404), (path, status)
        assert run_id not in body and "cell_source" not in body


async def test_another_site_cannot_use_the_users_session(request_raw, jp_auth_header, store):
    session_cookies = await log_in(request_raw, jp_auth_header)
    run_id = cpu_run().id
    cookie = cookie_header(session_cookies)
    # The session itself works: same-origin reads succeed with the cookie alone.
    status, body, _ = await request_raw(_path("runs", run_id), headers={"Cookie": cookie})
    assert status == 200 and json.loads(body)["id"] == run_id
    # Another site riding on that cookie can neither read nor delete.
    for method in ("GET", "DELETE"):
        status, body, _ = await request_raw(
            _path("runs", run_id), method=method, headers={"Cookie": cookie, "Origin": EVIL}
        )
        assert status in (403, 404), (method, status)
        assert "cell_source" not in body
    # A same-origin write without the XSRF token (a form post from elsewhere) is refused too.
    status, _, _ = await request_raw(_path("runs", run_id), method="DELETE", headers={"Cookie": cookie})
    assert status == 403
    # A page served under another host name (DNS rebinding) is refused.
    status, _, _ = await request_raw(_path("runs", run_id), headers={"Cookie": cookie, "Host": "evil.example"})
    assert status == 403
    assert store.count() == 1, "nothing was deleted"
    # With the XSRF token from the lab's own page, the same delete goes through.
    status, _, _ = await request_raw(
        _path("runs", run_id),
        method="DELETE",
        headers={"Cookie": cookie, "X-XSRFToken": session_cookies["_xsrf"]},
    )
    assert status == 204 and store.count() == 0


HOSTILE_IDS = [
    "../../../../etc/passwd",
    "..%2F..%2Fetc%2Fpasswd",
    "%2e%2e",
    "./cpu000000001",
    "cpu000000001/../other",
    "cpu000000001\x00",
    "cpu000000001\n",
    "' OR '1'='1",
    "cpu000000001' --",
    "1; DROP TABLE runs; --",
    '" OR ""="',
    "x" * 10_000,
    "\U0001d518\U0001d52b\U0001d526",  # mathematical letters: not ASCII letters
    "\u202ecpu000000001",  # right-to-left override
    "cpu000000001\u200b",  # zero-width space
    "$(id)",
    "%s%s%s%n",
    "{{7*7}}",
]


@pytest.mark.parametrize("hostile_id", HOSTILE_IDS, ids=range(len(HOSTILE_IDS)))
async def test_hostile_run_ids_are_refused_never_500(jp_fetch, jp_auth_header, request_raw, store, hostile_id):
    for parts, method in (
        (("runs", hostile_id), "GET"),
        (("runs", hostile_id, "figures"), "GET"),
        (("runs", hostile_id, "kernels", "cpp_fused_add_relu_0"), "GET"),
        (("runs", hostile_id), "DELETE"),
    ):
        status, body, _ = await request_raw(_path(*parts), method=method, headers=jp_auth_header)
        assert status in (400, 404), (parts, method, status, body[:200])
        assert "cell_source" not in body
    assert store.count() == 1 and store.get(cpu_run().id) == cpu_run()


HOSTILE_KERNEL_NAMES = [
    "' OR 1=1 --",
    "x' UNION SELECT run_json FROM runs --",
    "../../../../etc/passwd",
    "%",
    "_",
    "*",
    "\x00",
    "k" * 10_000,
    "\U0001f4a3",
]


@pytest.mark.parametrize("name", HOSTILE_KERNEL_NAMES, ids=range(len(HOSTILE_KERNEL_NAMES)))
async def test_hostile_kernel_names_are_not_found_never_500(request_raw, jp_auth_header, store, name):
    status, body, _ = await request_raw(_path("runs", cpu_run().id, "kernels", name), headers=jp_auth_header)
    assert status == 404, (status, body[:200])
    assert "cell_source" not in body and "extern" not in body


@pytest.mark.parametrize(
    "query, listed",
    [
        ("notebook=' OR '1'='1", 0),
        ("notebook=" + "n" * 10_000, 0),
        ("notebook=%00", 1),  # tornado drops control characters: an empty filter, i.e. every run
        ("limit=1;DROP TABLE runs", None),
        ("limit=1e3", None),
        ("offset=99999999999999999999", None),
        ("limit=-1", None),
        ("limit=%F0%9F%92%A3", None),
    ],
)
async def test_hostile_list_queries_never_500(request_raw, jp_auth_header, store, query, listed):
    name, _, value = query.partition("=")
    encoded = f"{name}={urllib.parse.quote(urllib.parse.unquote(value), safe='')}"
    status, body, _ = await request_raw(f"{API}/runs?{encoded}", headers=jp_auth_header)
    if listed is None:
        assert status == 400, (status, body[:200])
    else:
        assert status == 200 and len(json.loads(body)["runs"]) == listed
    assert store.count() == 1
