-- wrk script of scripts/soak.sh: a mix of the requests browsers and attackers send.
-- MODE=mixed: preflights (allowed and refused), simple and credentialed requests, disallowed
-- origins, malformed and oversized headers. MODE=origins: every request has a new Origin.

local mode = os.getenv("MODE") or "mixed"
local threads = {}
local counter = 0

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

local long_names = {}
for i = 1, 400 do long_names[i] = "x-header-" .. i end
local oversized = table.concat(long_names, ", ") -- about 6 KB, over the engine's 4 KiB

local mixed = {
  -- preflight, allowed
  { "OPTIONS", "/", { ["Origin"] = "https://example.com", ["Access-Control-Request-Method"] = "POST",
      ["Access-Control-Request-Headers"] = "x-pingother, content-type" } },
  -- preflight, method refused
  { "OPTIONS", "/", { ["Origin"] = "https://example.com", ["Access-Control-Request-Method"] = "DELETE" } },
  -- simple GET, allowed
  { "GET", "/", { ["Origin"] = "https://example.com" } },
  -- credentialed: the handler sets a cookie
  { "GET", "/credentials", { ["Origin"] = "https://example.com", ["Cookie"] = "one=1" } },
  -- disallowed and look-alike origins
  { "GET", "/", { ["Origin"] = "https://evil.example" } },
  { "GET", "/credentials", { ["Origin"] = "https://example.com.evil.example" } },
  { "OPTIONS", "/", { ["Origin"] = "null", ["Access-Control-Request-Method"] = "PATCH" } },
  -- malformed: a port out of range, no host, control-free garbage, non-ASCII bytes
  { "GET", "/", { ["Origin"] = "https://example.com:99999" } },
  { "GET", "/", { ["Origin"] = "https://" } },
  { "OPTIONS", "/", { ["Origin"] = "https://example.com", ["Access-Control-Request-Method"] = "P O S T" } },
  { "GET", "/", { ["Origin"] = "https://ex\xffample.com" } },
  -- oversized and malformed request headers
  { "OPTIONS", "/", { ["Origin"] = "https://example.com", ["Access-Control-Request-Method"] = "POST",
      ["Access-Control-Request-Headers"] = oversized } },
  { "OPTIONS", "/", { ["Origin"] = "https://example.com", ["Access-Control-Request-Method"] = "POST",
      ["Access-Control-Request-Headers"] = "x-a,,x-b, bad header, \"quoted\"" } },
  { "GET", "/", { ["Origin"] = string.rep("https://a.example", 40) } },
  -- not CORS
  { "GET", "/", {} },
  { "OPTIONS", "/", {} },
}

local prepared = {}
for i, r in ipairs(mixed) do
  prepared[i] = wrk.format(r[1], r[2], r[3])
end

function init(args)
  fivexx = 0
  other = 0
  statuses = {}
end

function request()
  counter = counter + 1
  if mode == "origins" then
    -- A new origin for every request: https://o<thread>-<n>.example
    local origin = "https://o" .. id .. "-" .. counter .. ".example"
    if counter % 2 == 0 then
      return wrk.format("GET", "/", { ["Origin"] = origin })
    end
    return wrk.format("OPTIONS", "/", { ["Origin"] = origin, ["Access-Control-Request-Method"] = "POST" })
  end
  return prepared[(counter % #prepared) + 1]
end

function response(status, headers, body)
  if status >= 500 then fivexx = fivexx + 1 end
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local total5xx = 0
  local all = {}
  for _, thread in ipairs(threads) do
    total5xx = total5xx + thread:get("fivexx")
    local ids = thread:get("id")
  end
  io.write(string.format("requests %d\n", summary.requests))
  io.write(string.format("5xx %d\n", total5xx))
  io.write(string.format("connect_errors %d\n", summary.errors.connect))
  io.write(string.format("read_errors %d\n", summary.errors.read))
  io.write(string.format("write_errors %d\n", summary.errors.write))
  io.write(string.format("timeouts %d\n", summary.errors.timeout))
end
