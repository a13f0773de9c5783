"""Refusals of schema-valid requests that no JSON Schema can state, for test/api/openapi-conformance.test.ts.

Schemathesis's positive_data_acceptance check fails a request the document calls valid when the API refuses it.
A few of the API's rules compare a value with another value, with stored data or with the outside world, which
JSON Schema cannot express; each operation's description states them in words. This hook lets such a failure
through only when the API's answer names one of these rules exactly (status, code, field, message); any other
refusal of a valid request still fails the run. Schemathesis counts what this hook drops in its summary.
"""

from __future__ import annotations

import json
import os
import re
import uuid

import schemathesis

# Set by the test: each dropped failure is written here (one JSON line), to see what was let through and why.
DROPPED_LOG = os.environ.get("FUZZ_DROPPED_LOG")

# (operations, status, code, field in details.fields or None (or a pattern every refused field matches), start of the
# field's message or of `error` (or a pattern it matches)).
ACCEPTED_REFUSALS = [
    # A one-time link token, an OAuth install state: only the ones the API issued and nobody used yet are valid.
    (
        {"POST /api/auth/email/verify-confirm", "POST /api/auth/password/reset-confirm", "GET /api/auth/storefront-a/callback",
         "POST /api/auth/invitations/lookup", "POST /api/auth/invitations/accept"},
        400, "INVALID_TOKEN", None, "",
    ),
    # A new password must not be the account's email (compares two values).
    ({"POST /api/auth/register", "POST /api/auth/password/reset-confirm", "POST /api/auth/invitations/accept"}, 400, "INVALID_INPUT", "body.password", "Passwords cannot be the same as the email address"),
    ({"PATCH /api/merchant/account"}, 400, "INVALID_INPUT", "body.newPassword", "Passwords cannot be the same as the email address"),
    # The struck-through price is above the price (compares two values; a PATCH compares with the stored one).
    ({"POST /api/merchant/order-bumps", "PATCH /api/merchant/order-bumps/{id}"}, 400, "INVALID_INPUT", "body.compareAtCents", "must be above priceCents"),
    # A PATCH of a discount code against its stored type: a new type needs its amount field, an amount field is the type's.
    ({"PATCH /api/merchant/discounts/{id}"}, 400, "INVALID_INPUT", "body.percentOff", ""),
    ({"PATCH /api/merchant/discounts/{id}"}, 400, "INVALID_INPUT", "body.amountOffCents", ""),
    # A PATCH of a pixel's id is checked against its stored platform's format.
    ({"PATCH /api/merchant/pixels/{id}"}, 400, "INVALID_INPUT", "body.trackingId", "not a "),
    # Date ranges: from before to (to defaults to now), statistics over at most 366 days (compare two values).
    ({"GET /api/merchant/stats", "GET /api/merchant/stats/funnel"}, 400, "INVALID_INPUT", "querystring.from", "must be before to"),
    ({"GET /api/merchant/stats", "GET /api/merchant/stats/funnel"}, 400, "INVALID_INPUT", "querystring.from", "the range may span at most"),
    ({"GET /api/checkout/merchant/orders"}, 400, "INVALID_INPUT", "querystring.to", "must be after from"),
    # A shipping rate's delivery estimate: its most days at least its fewest (compares two values).
    ({"PATCH /api/merchant/config"}, 400, "INVALID_INPUT", re.compile(r"^body\.shippingRates\.\d+\.deliveryDays\.max$"), "must be at least the fewest days"),
    # Recovery reminders each after the one before (compares values of one list).
    ({"PATCH /api/merchant/recovery"}, 400, "INVALID_INPUT", "body.delaysMinutes", "each reminder comes after the one before"),
    # An API key's expiry is in the future (compares with the clock).
    ({"POST /api/merchant/api-keys"}, 400, "INVALID_INPUT", "body.expiresAt", "must be in the future"),
    # An opaque cursor: only a nextCursor the API handed out is one.
    ({"GET /api/checkout/merchant/orders", "GET /api/checkout/merchant/customers", "GET /api/merchant/webhooks/deliveries", "GET /api/merchant/webhooks/events"}, 400, "INVALID_INPUT", "querystring.cursor", "not a cursor of this list"),
    # References to the session's own shipping rates and order bumps (ids from the session bundle and /order-bumps).
    (
        {"POST /api/checkout/{token}/init-payment", "POST /api/checkout/{token}/complete-cod", "POST /api/checkout/{token}/validate-discount", "POST /api/checkout/{token}/quote"},
        400, "INVALID_INPUT", "body.shippingRateId", "no shipping rate",
    ),
    (
        {"POST /api/checkout/{token}/init-payment", "POST /api/checkout/{token}/complete-cod", "POST /api/checkout/{token}/validate-discount", "POST /api/checkout/{token}/quote"},
        400, "INVALID_INPUT", "body.orderBumpIds", "no order bump",
    ),
    # An address's postal code in its country's format, and the region its country's addresses need (compares the postal
    # code and the region with the country: domain/address-rules.ts, stated in the address's description).
    (
        {"POST /api/checkout/{token}/init-payment", "POST /api/checkout/{token}/complete-cod", "POST /api/checkout/{token}/quote"},
        400, "INVALID_INPUT", re.compile(r"^body\.(address|billingAddress)\.(postalCode|region)$"),
        re.compile(r"^(enter the (postal code|ZIP code|Eircode|PIN code) in the format used in [A-Z]{2}, e\.g\. |choose (the|a) (state|province|county|region)\b)"),
    ),
    # A refund's returned lines point into the order's own lines, at most as many as it holds, each once (stored data).
    (
        {"POST /api/checkout/merchant/orders/{token}/refund"},
        400, "INVALID_INPUT", re.compile(r"^body\.lines\.\d+\.(line|quantity)$"), re.compile(r"^(the order has no line \d+|line \d+ holds \d+|line \d+ is listed twice)"),
    ),
]

# URLs the server fetches or connects to are refused for what they resolve to or answer (security/ssrf.ts, the logo
# check, the store's connection check): the fuzz stack resolves every public name to a documentation address, so
# nothing leaves the machine, and only the simulators answer.
FETCHED_URL_FIELDS = {
    "PATCH /api/merchant/config": "body.branding.logoUrl",
    "POST /api/merchant/storefront-b/connect": "body.storeUrl",
    "POST /api/merchant/order-bumps": "body.imageUrl",
    "PATCH /api/merchant/order-bumps/{id}": "body.imageUrl",
    "POST /api/merchant/upsells": "body.imageUrl",
    "PATCH /api/merchant/upsells/{id}": "body.imageUrl",
    # A webhook endpoint's URL: resolved through the SSRF guard when saved.
    "POST /api/merchant/webhooks/endpoints": "body.url",
    "PATCH /api/merchant/webhooks/endpoints/{id}": "body.url",
}
OUTSIDE_WORLD = (
    "is in a documentation range",
    "is not a public host name",
    "the URL answered HTTP",
    "must be a PNG or SVG image",
    "must be an image (",
    "could not be fetched",
    "did not answer within",
    "No storefront B REST API answers at this store URL",
    "The store refused the connection check",
)


def _answer(response) -> dict:
    try:
        body = json.loads(response.content)
    except (ValueError, TypeError):
        return {}
    return body if isinstance(body, dict) else {}


def is_accepted_refusal(operation: str, status: int, body: dict) -> bool:
    code = body.get("code")
    details = body.get("details") if isinstance(body.get("details"), dict) else {}
    fields = details.get("fields") if isinstance(details.get("fields"), dict) else {}
    for operations, expected_status, expected_code, field, message in ACCEPTED_REFUSALS:
        if operation not in operations or status != expected_status or code != expected_code:
            continue
        said = lambda text: bool(message.match(text)) if isinstance(message, re.Pattern) else text.startswith(message)
        if field is None:
            if said(str(body.get("error", ""))):
                return True
        elif isinstance(field, re.Pattern):
            # Fields named by position (body.lines.0.line): every refused field is one of the rule's, with its words.
            if fields and all(field.match(name) and said(str(text)) for name, text in fields.items()):
                return True
        elif set(fields) == {field} and said(str(fields[field])):
            return True
    field = FETCHED_URL_FIELDS.get(operation)
    if field and status == 400 and code == "INVALID_INPUT" and set(fields) <= {field}:
        said = str(fields.get(field, body.get("error", "")))
        return any(fragment in said for fragment in OUTSIDE_WORLD)
    return False


@schemathesis.hook
def filter_failure(context, failure, case, response) -> bool:
    """Keeps every failure but a schema-valid request refused for one of the rules above."""
    if getattr(failure, "code", None) != "ST202":
        return True
    answer = _answer(response)
    if not is_accepted_refusal(case.operation.label, response.status_code, answer):
        return True
    if DROPPED_LOG:
        with open(DROPPED_LOG, "a", encoding="utf-8") as log:
            log.write(json.dumps({"operation": case.operation.label, "status": response.status_code, "answer": answer}) + "\n")
    return False


# A valid Idempotency-Key drawn by the fuzzer repeats ("0" a thousand times): every later POST under it would be
# answered 422 IDEMPOTENCY_KEY_REUSED without its body being looked at, and the run would stop testing the routes.
# Each valid key is made unique per request; invalid ones are left as drawn, so their 400 is still checked. Replays
# and reuse are tested in api/plugins/idempotency.test.ts.
VALID_IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$")


@schemathesis.hook
def before_call(context, case, **kwargs):
    for name in list((case.headers or {}).keys()):
        value = case.headers[name]
        if name.lower() == "idempotency-key" and isinstance(value, str) and VALID_IDEMPOTENCY_KEY.match(value):
            case.headers[name] = f"fuzz-{uuid.uuid4()}"
