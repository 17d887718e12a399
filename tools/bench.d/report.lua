-- wrk script: method, body, bearer token and pacing from the environment; prints one JSON line.
wrk.method = os.getenv("WRK_METHOD") or "GET"
local body = os.getenv("WRK_BODY")
if body and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
local token = os.getenv("WRK_TOKEN")
if token and token ~= "" then wrk.headers["Authorization"] = "Bearer " .. token end
-- WRK_EDIT: each request's body a new text ({"text":"edit <n>"}), so that no edit is a no-op;
-- WRK_IDEMPOTENCY: each request with its own Idempotency-Key (the claim row an edit then writes).
local edit = os.getenv("WRK_EDIT") == "1"
local keyed = os.getenv("WRK_IDEMPOTENCY") == "1"
-- WRK_PATHS: comma-separated paths taken in turn (edits spread over many notes: eight phones on
-- one note at once are refused 409 "kept changing", which is not the cost measured here).
local paths
if (os.getenv("WRK_PATHS") or "") ~= "" then
  paths = {}
  for path in string.gmatch(os.getenv("WRK_PATHS"), "[^,]+") do paths[#paths + 1] = path end
end
if edit or keyed then
  local sent = 0
  local prefix = string.format("%x%x", os.time(), math.random(1, 1e9))
  function request()
    sent = sent + 1
    local headers = {}
    for name, value in pairs(wrk.headers) do headers[name] = value end
    if keyed then headers["Idempotency-Key"] = prefix .. "-" .. sent end
    local text = edit and string.format('{"text":"edit %d"}', sent) or wrk.body
    if edit then headers["Content-Type"] = "application/json" end
    return wrk.format(wrk.method, paths and paths[sent % #paths + 1] or wrk.path, headers, text)
  end
end
local pace = tonumber(os.getenv("WRK_DELAY_MS") or "0")
if pace > 0 then
  function delay() return pace end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"seconds":%.3f,"per_second":%.0f,"socket_errors":%d,"non_2xx":%d,"p50_ms":%.3f,"p99_ms":%.3f}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    e.connect + e.read + e.write + e.timeout, e.status, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
