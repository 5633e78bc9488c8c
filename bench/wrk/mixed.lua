-- Warm-up: cycles through the four bench routes (GET /, GET /users/:id, GET 404, POST /echo).
local body = '{"hello":"world","n":42,"list":[1,2,3]}'
local reqs = {}
local i = 0
function init(args)
  reqs[1] = wrk.format("GET", "/")
  reqs[2] = wrk.format("GET", "/users/42")
  reqs[3] = wrk.format("GET", "/does-not-exist")
  reqs[4] = wrk.format("POST", "/echo", { ["Content-Type"] = "application/json" }, body)
end
function request()
  i = i % 4 + 1
  return reqs[i]
end
