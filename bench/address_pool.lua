-- wrk script of the catalogue and valuation benchmarks: every request takes a random line of a file (given after
-- `--`) and a random X-Forwarded-For address from a large pool, so that per-IP token buckets never empty. Without
-- a path the lines are paths to GET; with one, they are JSON bodies to POST to that path.
-- Usage: wrk -t2 -c32 -d10s --latency -s bench/address_pool.lua http://127.0.0.1:PORT -- lines.txt [pool_size [path]]

local lines = {}
local nlines = 0
local pool = 100000
local post_path = nil
local threads = 0

-- runs in the main state: numbers the threads so that each seeds its generator differently
function setup(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

function init(args)
  local file = args[1]
  if file == nil then
    error("address_pool.lua: give the file of paths or bodies after --")
  end
  for line in io.lines(file) do
    if #line > 0 then
      nlines = nlines + 1
      lines[nlines] = line
    end
  end
  if nlines == 0 then
    error("address_pool.lua: no lines in " .. file)
  end
  if args[2] ~= nil then
    pool = tonumber(args[2])
  end
  post_path = args[3]
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
  local line = lines[math.random(nlines)]
  local from = address(math.random(0, pool - 1))
  if post_path == nil then
    return wrk.format("GET", line, { ["X-Forwarded-For"] = from })
  end
  return wrk.format("POST", post_path, { ["Content-Type"] = "application/json", ["X-Forwarded-For"] = from }, line)
end
