-- The reference for the Lua binding: a counting hook in Lua itself.
-- lua5.4 count.lua SCRIPT: runs SCRIPT with a call hook that counts every
-- call and tail call per function, and prints "KEY COUNT" lines to stderr:
-- a Lua function's KEY is FILE:LINEDEFINED (FILE the base name), a C
-- function's is C:NAME, NAME being what Lua calls it at its first call
-- ("#2", "#3" added when another C function already has that name).
-- Lua's debug hooks are per coroutine, so coroutine.create is replaced by
-- one that hooks the new coroutine; a call of it counts as a call of
-- create, and the calls it makes itself are not counted.
local counts, keys, taken = {}, {}, {}
local getinfo, sethook, cocreate = debug.getinfo, debug.sethook, coroutine.create
local hook
local function create(f)
  local co = cocreate(f)
  sethook(co, hook, "c")
  return co
end
keys[create] = "C:create"
keys[cocreate] = false
keys[sethook] = false
keys[dofile] = false      -- the harness's own call of the script
hook = function()
  local info = getinfo(2, "Sf")
  local key = keys[info.func]
  if key == nil then
    if info.what == "C" then
      local name = getinfo(2, "n").name or "?"
      key = "C:" .. name
      local i = 2
      while taken[key] do key = "C:" .. name .. "#" .. i; i = i + 1 end
      taken[key] = true
    else
      key = info.short_src:match("[^/]*$") .. ":" .. info.linedefined
    end
    keys[info.func] = key
  end
  if key then counts[key] = (counts[key] or 0) + 1 end
end
coroutine.create = create
local script = arg[1]
arg = { [0] = script }
sethook(hook, "c")
dofile(script)
sethook()
for k, n in pairs(counts) do io.stderr:write(k, " ", n, "\n") end
