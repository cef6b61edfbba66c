-- A small word-frequency and geometry program: closures, metatables,
-- table.sort with a Lua comparator, string.gsub with a callback, pcall
-- catching errors raised deep down, coroutines as generators, tail calls.
local Vec = {}
Vec.__index = Vec
function Vec.new(x, y) return setmetatable({ x = x, y = y }, Vec) end
function Vec.__add(a, b) return Vec.new(a.x + b.x, a.y + b.y) end
function Vec:len() return math.sqrt(self.x * self.x + self.y * self.y) end

local text = [[the quick brown fox jumps over the lazy dog the fox
and the dog sleep while the quick cat watches the brown fox run]]

local function words(s)
  return coroutine.create(function()
    for w in s:gmatch("%a+") do coroutine.yield(w) end
  end)
end

-- Words in order of first appearance, and their counts.  (The order of
-- pairs() changes from run to run; the number of calls must not.)
local function count(s)
  local freq, order = {}, {}
  local co = words(s)
  while true do
    local _, w = coroutine.resume(co)
    if not w then break end
    if not freq[w] then order[#order + 1] = w end
    freq[w] = (freq[w] or 0) + 1
  end
  local distinct = 0
  for _ in pairs(freq) do distinct = distinct + 1 end
  assert(distinct == #order)
  return freq, order
end

local function sorted_keys(t, order)
  local keys = table.move(order, 1, #order, 1, {})
  table.sort(keys, function(a, b)
    if t[a] ~= t[b] then return t[a] > t[b] end
    return a < b
  end)
  return keys
end

local function check(depth, n)
  if depth == 0 then
    if n % 3 == 0 then error("multiple of three: " .. n) end
    return n
  end
  return check(depth - 1, n) + 0
end

local function loop(n, acc)       -- tail recursion
  if n == 0 then return acc end
  return loop(n - 1, acc + n)
end

local freq, order = count(text)
for i, k in ipairs(sorted_keys(freq, order)) do
  if i <= 3 then print(k, freq[k]) end
end
print((text:gsub("%a+", function(w) return #w > 4 and w:upper() or nil end)):sub(1, 30))

local sum = Vec.new(0, 0)
for i = 1, 50 do sum = sum + Vec.new(i, -i) end
print(string.format("%.1f", sum:len()))

local ok, bad = 0, 0
for i = 1, 30 do
  if pcall(check, 5, i) then ok = ok + 1 else bad = bad + 1 end
end
print(ok, bad, loop(100, 0))
