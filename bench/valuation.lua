-- wrk script of the valuation benchmark: every request is a POST of a random JSON body from a file (one body a
-- line, given after `--`) to one path, with `Content-Type: application/json` and a random X-Forwarded-For address
-- from a large pool, so that per-IP token buckets never empty.
-- Usage: wrk -t2 -c32 -d10s --latency -s bench/valuation.lua http://127.0.0.1:PORT -- bodies.txt pool_size path

local bodies = {}
local nbodies = 0
local pool = 100000
local path = "/api/public/valuation/location-baseline"
local threads = 0

-- runs in the main state: numbers the threads so that each seeds its generator differently
function setup(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

function init(args)
  local file = args[1]
  if file == nil then
    error("valuation.lua: give the bodies file after --")
  end
  for line in io.lines(file) do
    if #line > 0 then
      nbodies = nbodies + 1
      bodies[nbodies] = line
    end
  end
  if nbodies == 0 then
    error("valuation.lua: no bodies in " .. file)
  end
  if args[2] ~= nil then
    pool = tonumber(args[2])
  end
  if args[3] ~= nil then
    path = args[3]
  end
  math.randomseed(os.time() + (thread_id or 0) * 7919)
end

-- Address number n of the pool: four in five are IPv4 from 10.0.0.0/8, the rest IPv6 in distinct /64 networks
-- (the same pool as catalogue.lua).
local function address(n)
  if n % 5 == 0 then
    return string.format("2001:db8:%x:%x::%x", math.floor(n / 65536) % 65536, n % 65536, 1 + n % 4000)
  end
  return string.format("10.%d.%d.%d", math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
end

function request()
  local body = bodies[math.random(nbodies)]
  return wrk.format("POST", path, {
    ["Content-Type"] = "application/json",
    ["X-Forwarded-For"] = address(math.random(0, pool - 1)),
  }, body)
end
