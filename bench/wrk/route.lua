-- One route per wrk run. The orchestrator sets WRK_METHOD and, for POST, WRK_BODY (JSON).
local method = os.getenv("WRK_METHOD") or "GET"
local body = os.getenv("WRK_BODY")
wrk.method = method
if body and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
