-- wrk script: method, body, bearer token and pacing from the environment; prints one JSON line.
wrk.method = os.getenv("WRK_METHOD") or "GET"
local body = os.getenv("WRK_BODY")
if body and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
local token = os.getenv("WRK_TOKEN")
if token and token ~= "" then wrk.headers["Authorization"] = "Bearer " .. token end
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
