-- expr.lua -- the expressions of the book's directives and conditions (notes/design.md, "Directives"):
-- their grammar, the values they name and their evaluation in units. The filters load it with require.
local B = require('book')
local E, List = {}, pandoc.List

--   directive := claim SIDE CMP SIDE | output NAME | runs NAME | spread REF | records | KEY | SIDE
--   SIDE := TERM {(* | /) TERM}      CMP := < <= > >= ==      (operators stand between blanks)
--   TERM := NUMBER | REF | min(REF) | max(REF)      REF := NAME:L.N | NAME: LABEL | NAME: LABEL #K
--   (KEY: a provenance key of the set, a-z, 0-9 and _, whatever make run recorded)
-- A SIDE standing alone is one REF term (a value) or REF / REF (a ratio, whose two terms are its sides).
E.CMP = { ['<'] = function(a, b) return a < b end, ['<='] = function(a, b) return a <= b end,
          ['>'] = function(a, b) return a > b end, ['>='] = function(a, b) return a >= b end,
          ['=='] = function(a, b) return math.abs(a - b) <= 1e-9 * math.max(math.abs(a), math.abs(b)) end }
local NAME = '[%w_%.%-]+'

function E.parse_term(t)
  local num = t:match('^[-+]?[%d.][%d.eE+-]*$') and tonumber(t)
  if num then return { num = num, text = t } end
  local stat, inner = t:match('^(m[ai][nx])%((.*)%)$')
  if stat ~= 'min' and stat ~= 'max' then stat, inner = 'med', t end
  local name, rest = inner:match('^(' .. NAME .. '):(.*)$')
  if not name then B.fail("expected a number, NAME:L.N, NAME: LABEL, min(REF) or max(REF), found '" .. t .. "'") end
  local l, n = rest:match('^(%d+)%.(%d+)$')
  if l then return { name = name, stat = stat, text = t, pos = tonumber(l) .. '.' .. tonumber(n) } end
  local label, k = rest:match('^%s*(.-)%s+#(%d+)$')
  label = label or rest:match('^%s*(.-)%s*$')
  if label == '' then B.fail("expected L.N or a label after '" .. name .. ":', found '" .. t .. "'") end
  return { name = name, stat = stat, text = t, label = label, k = tonumber(k) }
end

-- tokens[i..j] (words between blanks) as one SIDE; `what` names it in messages.
local function parse_side(tokens, i, j, what)
  local side, words = { terms = {}, ops = {} }, {}
  for x = i, j + 1 do
    local w = x <= j and tokens[x]
    if w and w ~= '*' and w ~= '/' then
      words[#words + 1] = w
    else
      if #words == 0 then B.fail('expected a term ' .. (w and "before '" .. w .. "'" or 'at the end') .. ' of ' .. what) end
      table.insert(side.terms, E.parse_term(table.concat(words, ' ')))
      side.ops[#side.terms + 1], words = w, {}
    end
  end
  return side
end

function E.parse(inner)
  local tokens, cmps = {}, {}
  for w in inner:gmatch('%S+') do
    tokens[#tokens + 1] = w
    if E.CMP[w] then cmps[#cmps + 1] = #tokens end
  end
  local s, head = table.concat(tokens, ' '), tokens[1]
  if not head then B.fail('expected a directive inside {{ }}, found nothing') end
  if head == 'claim' then
    local at = cmps[1]
    if #cmps ~= 1 then B.fail((at and 'expected one comparison' or 'expected one of < <= > >= == between blanks')
                              .. " in the claim '" .. s .. "'") end
    return { kind = 'claim', op = tokens[at], lhs = parse_side(tokens, 2, at - 1, 'the left side'),
             rhs = parse_side(tokens, at + 1, #tokens, 'the right side') }
  elseif head == 'output' or head == 'runs' then
    if #tokens ~= 2 or not tokens[2]:match('^' .. NAME .. '$') then B.fail('expected ' .. head .. " NAME, found '" .. s .. "'") end
    return { kind = head, name = tokens[2] }
  elseif head == 'spread' then
    local ref = #tokens > 1 and E.parse_term(table.concat(tokens, ' ', 2))
    if not ref or not ref.name or ref.stat ~= 'med' then B.fail("expected spread REF, found '" .. s .. "'") end
    return { kind = 'spread', a = ref }
  elseif #tokens == 1 and head:match('^[%l%d_]+$') then
    return { kind = head == 'records' and head or 'prov', key = head }
  elseif #cmps > 0 then
    B.fail('a comparison belongs in a claim: {{claim ' .. s .. '}}')
  end
  local side = parse_side(tokens, 1, #tokens, 'the value')
  local a, b = side.terms[1], side.terms[2]
  if #side.terms == 1 and a.name then return { kind = 'value', a = a } end
  if #side.terms == 2 and side.ops[2] == '/' and a.name and b.name then
    return { kind = 'ratio', lhs = { terms = { a }, ops = {} }, rhs = { terms = { b }, ops = {} } }
  end
  B.fail("expected REF, min(REF), max(REF) or REF / REF, found '" .. s .. "'")
end

-- The value row a REF names, by its key or position (values.c writes both), and its record; nil when
-- the record is missing. A value the record lacks was not measured on this GPU (a set may hold fewer
-- variants); a typo is caught where the author's own set is checked, where every warning is an error.
function E.resolve(ref, loc)
  local r = B.record(ref.name, loc)
  if r.status == 'missing' then return nil, r end
  local function key(label, k) return B.canon(ref.name .. ': ' .. label .. ' #' .. k) end
  local label, k = ref.label, ref.k
  local v = r.by[ref.pos or key(label, k or 1)]
  -- A label may end in #N itself ('launch #2'): NAME: LABEL #N names it, unless LABEL has an Nth value.
  local whole = k and r.by[key(label .. ' #' .. k, 1)]
  if whole and v then
    B.fail(("'%s #%d' names two values of %s: the #%d of those labelled '%s', and the one labelled so (%s #%d #1)")
           :format(label, k, ref.name, k, label, label, k))
  end
  if whole then v, label, k = whole, label .. ' #' .. k, nil end
  if v and not ref.pos and not k and v.nocc > 1 then
    B.fail(v.nocc .. ' values of ' .. ref.name .. " are labelled '" .. label .. "': add #1"
           .. (v.nocc > 2 and ', #2, ...' or '') .. ' or #' .. v.nocc)
  end
  if v then return v, r end
  local labels, why = List(), ref.pos and ref.name .. ' has no value ' .. ref.pos
  for _, x in ipairs(r.values) do if x.occ == 1 then labels:insert("'" .. x.label .. "'") end end
  local first = ref.k and r.by[B.canon(ref.name .. ': ' .. ref.label .. ' #1')]
  why = why or first and ref.name .. ' has no #' .. ref.k .. " of the values labelled '" .. ref.label .. "' ("
    .. first.nocc .. ' of them)' or 'no value of ' .. ref.name .. " is labelled '" .. ref.label
    .. "'; its labels: " .. (#labels > 0 and table.concat(labels, ', ') or 'none')
  loc.unfresh:insert({ name = ref.text, status = 'missing',
                       lacks = why .. (r.status ~= 'fresh' and ' (the record is stale: ' .. r.why .. ')' or '') })
  return nil, r
end

-- A value as printed, with its unit after a non-breaking space: 4.3190 ms; 45%. Whole numbers of
-- five digits or more read better in prose grouped: 1,048,576.
function E.value_text(v, stat)
  local n = v[stat]
  if n:match('^%-?%d%d%d%d%d+$') then n = n:reverse():gsub('(%d%d%d)', '%1,'):reverse():gsub('^(%-?),', '%1') end
  return n .. (v.unit == '-' and '' or v.unit == '%' and '%' or '\u{A0}' .. v.unit)
end

-- The units of values.c: each is a factor times the base unit of its kind.
local UNITS = { s = { 's', 1 }, ms = { 's', 1e-3 }, us = { 's', 1e-6 }, ns = { 's', 1e-9 }, MHz = { 'Hz', 1e6 },
                GHz = { 'Hz', 1e9 }, ['GB/s'] = { 'B/s', 1e9 }, ['TB/s'] = { 'B/s', 1e12 }, ['%'] = { '%', 1 } }

-- A SIDE's value, how it reads ("hist:1.2 (4.31 ms) * 2 [= 8.62 ms]"), its unit and whether it is
-- numbers alone; nil when a record is missing (its own warning says so). A value is taken in the unit
-- of its kind that the directive names first (units: kind -> that unit); `what` names the whole.
local function eval_side(side, loc, what, units)
  local acc, shown, power, bare = 1, {}, {}, true
  for i, t in ipairs(side.terms) do
    local x, txt, v, div = t.num, t.text, not t.num and E.resolve(t, loc), side.ops[i] == '/'
    bare = bare and t.num ~= nil
    if v then x, txt = tonumber(v[t.stat]), txt .. ' (' .. E.value_text(v, t.stat):gsub('\u{A0}', ' ') .. ')' end
    if v and v.unit ~= '-' then
      local kind, f = table.unpack(UNITS[v.unit] or { v.unit, 1 })
      units[kind] = units[kind] or { v.unit, f }
      x, power[kind] = x * f / units[kind][2], (power[kind] or 0) + (div and -1 or 1)
      if units[kind][1] ~= v.unit then txt = txt:sub(1, -2) .. (' = %.4g %s)'):format(x, units[kind][1]) end
    end
    if x == 0 and div then B.fail(t.text .. ' is zero, so ' .. what .. ' has no value') end
    acc = acc and x and (div and acc / x or acc * x)
    shown[#shown + 1] = (i > 1 and side.ops[i] .. ' ' or '') .. txt
  end
  if not acc then return nil end
  local unit, s = {}, table.concat(shown, ' ')
  for kind, p in pairs(power) do if p ~= 0 then unit[#unit + 1] = units[kind][1] .. (p ~= 1 and '^' .. p or '') end end
  table.sort(unit)
  unit = #unit > 0 and table.concat(unit, ' ') or 'no unit'
  return acc, #side.terms > 1 and ('%s [= %.4g %s]'):format(s, acc, unit):gsub(' no unit]$', ']') or s, unit, bare
end

-- The two sides of a claim or a ratio, in the same units; nil when a record is missing. Their units
-- must be the same, but for a side of numbers alone, which stands in the other side's unit.
function E.eval_sides(d, loc, what)
  local units = {}
  local a, ls, au, abare = eval_side(d.lhs, loc, what, units)
  local b, rs, bu, bbare = eval_side(d.rhs, loc, what, units)
  if a and b and au ~= bu and not abare and not bbare then
    B.fail(what .. "'s units do not convert into each other: " .. au .. ' against ' .. bu)
  end
  return a, b, ls, rs
end

-- Whether a comparison holds, and it with its values as text; nothing when a record is missing.
function E.compare(d, loc, what)
  local a, b, ls, rs = E.eval_sides(d, loc, what)
  if a and b then return E.CMP[d.op](a, b), ls .. ' ' .. d.op .. ' ' .. rs end
end

return E
