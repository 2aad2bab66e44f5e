-- wrk script of the catalogue benchmark: every request takes a random path from a file (one path a line, given
-- after `--`) and a random X-Forwarded-For address from a large pool, so that per-IP token buckets never empty.
-- Usage: wrk -t2 -c32 -d10s --latency -s bench/catalogue.lua http://127.0.0.1:PORT -- paths.txt [pool_size]

local paths = {}
local npaths = 0
local pool = 100000
local threads = 0

-- runs in the main state: numbers the threads so that each seeds its generator differently
function setup(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

function init(args)
  local file = args[1]
  if file == nil then
    error("catalogue.lua: give the paths file after --")
  end
  for line in io.lines(file) do
    if #line > 0 then
      npaths = npaths + 1
      paths[npaths] = line
    end
  end
  if npaths == 0 then
    error("catalogue.lua: no paths in " .. file)
  end
  if args[2] ~= nil then
    pool = tonumber(args[2])
  end
  math.randomseed(os.time() + (thread_id or 0) * 7919)
end

-- Address number n of the pool: four in five are IPv4 from 10.0.0.0/8, the rest IPv6 in distinct /64 networks.
local function address(n)
  if n % 5 == 0 then
    return string.format("2001:db8:%x:%x::%x", math.floor(n / 65536) % 65536, n % 65536, 1 + n % 4000)
  end
  return string.format("10.%d.%d.%d", math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
end

function request()
  local path = paths[math.random(npaths)]
  return wrk.format("GET", path, { ["X-Forwarded-For"] = address(math.random(0, pool - 1)) })
end
