"""Drives Whop's official Python SDK (whop-sdk, pinned in scripts/lib/whop-python-sdk-requirements.txt) for
test/contract/processor-domains.test.ts: its Domains resource, pointed at the processor simulator.

Usage: python whop_domains_contract.py <api base, e.g. http://127.0.0.1:4010/api/v1>
Reads one JSON request per line on stdin, {"op", "api_key", "args", "idempotency_key"?}, and answers one JSON line
per request on stdout: {"ok": <the SDK's parsed answer, as JSON>} | {"api_error": {"status", "class", "body"}} |
{"parse_error": "..."} (the SDK could not read the answer as its own types). Nothing here builds a request or reads
an answer by hand: the SDK's methods and types do both.
"""

import json
import sys

from whop_sdk import Whop
from whop_sdk.core.api_error import ApiError
from whop_sdk.core.parse_error import ParsingError
from whop_sdk.domains import CreateDomainsRequestApplePay, UpdateDomainsRequestApplePay
from whop_sdk.environment import WhopEnvironment

API_BASE = sys.argv[1]
# The SDK's environment names the API base (and the vault's, unused here); its defaults are Whop's production and
# sandbox hosts (whop_sdk/environment.py).
ENVIRONMENT = WhopEnvironment(api=API_BASE, vault=API_BASE)
clients = {}


def client(api_key):
    if api_key not in clients:
        clients[api_key] = Whop(environment=ENVIRONMENT, token=api_key, max_retries=0, timeout=10)
    return clients[api_key]


def capability(value, kind):
    """{} adds the capability (the SDK's empty request type), None releases it, absent leaves it."""
    return None if value is None else kind(**value)


def dump(model):
    return model.model_dump(mode="json") if hasattr(model, "model_dump") else model.dict()


def run(request):
    whop = client(request["api_key"]).domains
    args = dict(request.get("args") or {})
    options = {"additional_headers": {"Idempotency-Key": request["idempotency_key"]}} if request.get("idempotency_key") else None
    op = request["op"]
    if op == "list":
        pager = whop.list(**args, request_options=options)
        # Every page, through the SDK's own pager (it follows page_info.end_cursor).
        return {"items": [dump(item) for item in pager]}
    if op == "create":
        if "apple_pay" in args:
            args["apple_pay"] = capability(args["apple_pay"], CreateDomainsRequestApplePay)
        return dump(whop.create(**args, request_options=options))
    if op == "update":
        if "apple_pay" in args:
            args["apple_pay"] = capability(args["apple_pay"], UpdateDomainsRequestApplePay)
        return dump(whop.update(args.pop("id"), **args, request_options=options))
    if op in ("retrieve", "check", "delete"):
        return dump(getattr(whop, op)(args["id"], request_options=options))
    raise ValueError(f"unknown op {op}")


for line in sys.stdin:
    if not line.strip():
        continue
    try:
        answer = {"ok": run(json.loads(line))}
    except ParsingError as err:
        answer = {"parse_error": f"{err.status_code}: {err.cause}"}
    except ApiError as err:
        answer = {"api_error": {"status": err.status_code, "class": type(err).__name__, "body": err.body}}
    print(json.dumps(answer), flush=True)
