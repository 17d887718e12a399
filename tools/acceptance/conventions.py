"""The wire format's one convention, checked on every JSON body an acceptance run receives.

camelCase members (OAuth's own names aside), one list envelope ({items, nextCursor}, both always
there), problem documents with a code from docs/openapi.yaml. `tests/WireConventionTests` checks
the document itself by the same rules.
"""
import os
import re

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OAUTH = {"access_token", "refresh_token", "expires_in", "token_type", "id_token"}
OLD_ENVELOPES = {"collections", "entries", "hits", "links", "photos", "notebooks", "next_cursor"}
CAMEL = re.compile(r"^[a-z][a-zA-Z0-9]*$")
# Members whose keys are the client's own data, not the API's names (the operator's API: a log
# line's fields as the log writes them, records deleted by collection name).
FREE_FORM = {"resource", "highlights", "labels", "fields", "collections"}

_codes = None


def problem_codes():
    global _codes
    if _codes is None:
        with open(os.path.join(ROOT, "docs", "openapi.yaml")) as handle:
            spec = yaml.safe_load(handle)
        _codes = set(spec["components"]["schemas"]["Problem"]["properties"]["code"]["enum"])
    return _codes


def violations(body, content_type="application/json"):
    """What in `body` breaks the convention, as sentences (empty when nothing does)."""
    found = []

    def walk(value, path):
        if isinstance(value, dict):
            for key, item in value.items():
                if key not in OAUTH and not CAMEL.match(key):
                    found.append(f"{path or 'body'}: member '{key}' is not camelCase")
                if key in OLD_ENVELOPES and isinstance(item, list):
                    found.append(f"{path or 'body'}: '{key}' is an old list envelope; lists are {{items, nextCursor}}")
                if key not in FREE_FORM:
                    walk(item, f"{path}.{key}" if path else key)
            # A list response is {items, nextCursor}; `items` inside a record (a page's items) is a member.
            if not path and "items" in value and isinstance(value["items"], list) and "nextCursor" not in value:
                found.append("body: a list without nextCursor")
        elif isinstance(value, list):
            for index, item in enumerate(value[:50]):
                walk(item, f"{path}[{index}]")

    walk(body, "")
    if content_type.startswith("application/problem+json") and isinstance(body, dict):
        if body.get("code") not in problem_codes():
            found.append(f"problem code '{body.get('code')}' is not in docs/openapi.yaml's list")
        if body.get("type") != f"urn:quire:problem:{body.get('code')}":
            found.append(f"problem type '{body.get('type')}' does not match its code")
    return found
