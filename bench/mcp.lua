-- wrk script of the MCP benchmark: every request is a random line of a file (given after `--`), either
--   GET<TAB>path                      (REST, no credentials)
--   POST<TAB>path<TAB>tool<TAB>body   (MCP tools/call, stateless protocol 2026-07-28, with the API key)
-- and every response is checked: `rest` mode counts a 200 with a JSON object body as good, `mcp` mode a 200 whose
-- body carries `structuredContent` and no `"isError":true`. done() prints the counts and a sample body, which
-- bench/mcp.ts reads from wrk's output. The requests are built once per thread, so that REST and MCP pay the
-- same (small) scripting cost per request.
-- Usage: wrk -t2 -c32 -d10s --latency -s bench/mcp.lua http://127.0.0.1:PORT -- requests.txt rest|mcp [api_key]

local requests = {}
local nrequests = 0
local mode = "rest"
local threads = {}

-- runs in the main state: keeps every thread for done() and numbers them so that each seeds differently
function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_id", #threads)
end

local function split(line)
  local parts = {}
  for part in string.gmatch(line, "[^\t]+") do
    table.insert(parts, part)
  end
  return parts
end

function init(args)
  local file = args[1]
  if file == nil then
    error("mcp.lua: give the requests file after --")
  end
  mode = args[2] or "rest"
  local key = args[3]
  for line in io.lines(file) do
    if #line > 0 then
      local p = split(line)
      local req
      if p[1] == "GET" then
        req = wrk.format("GET", p[2], {})
      elseif p[1] == "POST" then
        if key == nil then
          error("mcp.lua: POST lines need the API key after the mode")
        end
        req = wrk.format("POST", p[2], {
          ["Authorization"] = "Bearer " .. key,
          ["Content-Type"] = "application/json",
          ["Accept"] = "application/json, text/event-stream",
          ["MCP-Protocol-Version"] = "2026-07-28",
          ["Mcp-Method"] = "tools/call",
          ["Mcp-Name"] = p[3],
        }, p[4])
      else
        error("mcp.lua: bad line: " .. line)
      end
      nrequests = nrequests + 1
      requests[nrequests] = req
    end
  end
  if nrequests == 0 then
    error("mcp.lua: no requests in " .. file)
  end
  math.randomseed(os.time() + (thread_id or 0) * 7919)
  good = 0
  bad = 0
  bad_sample = ""
  good_sample = ""
end

function request()
  return requests[math.random(nrequests)]
end

function response(status, headers, body)
  local ok
  if mode == "mcp" then
    ok = status == 200 and string.find(body, '"structuredContent"', 1, true) ~= nil
      and string.find(body, '"isError":true', 1, true) == nil
  else
    ok = status == 200 and string.sub(body, 1, 2) == '{"'
  end
  if ok then
    good = good + 1
    if good_sample == "" then
      good_sample = string.sub(body, 1, 200)
    end
  else
    bad = bad + 1
    if bad_sample == "" then
      bad_sample = status .. " " .. string.sub(body, 1, 300)
    end
  end
end

function done(summary, latency, reqs)
  local g, b, bs, gs = 0, 0, "", ""
  for _, t in ipairs(threads) do
    g = g + (t:get("good") or 0)
    b = b + (t:get("bad") or 0)
    if bs == "" then
      bs = t:get("bad_sample") or ""
    end
    if gs == "" then
      gs = t:get("good_sample") or ""
    end
  end
  io.write(string.format("mcp.lua checked: good %d bad %d\n", g, b))
  io.write("mcp.lua good sample: " .. string.gsub(gs, "\n", " ") .. "\n")
  io.write("mcp.lua bad sample: " .. string.gsub(bs, "\n", " ") .. "\n")
end
