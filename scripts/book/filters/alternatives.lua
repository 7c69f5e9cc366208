-- alternatives.lua -- the book's pandoc filter for prose that depends on the measurements (notes/
-- design.md, "Alternatives"): of each group the set takes one; the others stay, marked alt="untaken",
-- for values.lua to check their directives quietly and drop.
package.path = PANDOC_SCRIPT_FILE:gsub('[^/]*$', '') .. '?.lua;' .. package.path
local B, E = require('book'), require('expr')
local List = pandoc.List

-- A condition: comparisons as in a claim, joined by 'and'; nil when a record is missing.
local function holds(cond, loc)
  local all, why = true, List()
  for part in (cond .. ' and '):gmatch('(.-) and ') do
    local ok, text = E.compare(E.parse('claim ' .. part), loc, 'the condition')
    if ok == nil then return nil end
    all = all and ok
    why:insert(text)
  end
  return all, table.concat(why, ' and ')
end

-- Which member of the group (its conditions) the set chooses, or 0; and the missing record, if any.
local function choose(conds)
  local yes, shown, missing, first = List(), List(), nil, nil
  for i, cond in ipairs(conds) do
    local loc = B.locate('when="' .. cond .. '"')
    local ok, res, why = pcall(holds, cond, loc)
    if not ok and type(res) ~= 'table' then error(res, 0) end
    if not ok then B.message(loc, 'error', res.msg) else B.report(loc) end
    missing = missing or (ok and res == nil and loc.unfresh[1])
    if res == true then yes:insert(i) end
    shown:insert(('%d. %s'):format(i, why or '?'))
    first = first or loc
  end
  if not missing and #yes ~= 1 then
    B.message(first, 'error', (#yes == 0 and 'none of the alternatives holds' or 'alternatives '
      .. table.concat(yes, ' and ') .. ' hold together') .. ' for this set; exactly one must: ' .. table.concat(shown, '; '))
  end
  return #yes == 1 and yes[1] or 0, missing
end

-- Members of a group get alt-group and alt-n, and their conditions are kept; the blanks between
-- spans go. Then, in document order, the first member of each group chooses, and each member is
-- marked taken or untaken (and the first is preceded by the note of a missing record).
local groups = {}
local function tag(list, is_blank)
  local out, g, any = List(), nil, false
  for _, el in ipairs(list) do
    if (el.t == 'Div' or el.t == 'Span') and el.attributes.when then
      if g then while #out > 0 and is_blank(out[#out]) do out:remove(#out) end
      else g = List(); groups[#groups + 1] = { conds = g } end
      g:insert(el.attributes.when)
      el.attributes.when, el.attributes['alt-group'], el.attributes['alt-n'], any = nil, tostring(#groups), tostring(#g), true
    elseif el.attributes and el.attributes.when then   -- a heading, code, a link...: it would be ignored
      local loc = B.locate('when="' .. el.attributes.when .. '"')
      B.message(loc, 'error', 'when= chooses between divs or spans, not a ' .. el.t
                              .. ': ::: {when="..."} or [...]{when="..."}')
      g = nil
    elseif not is_blank(el) then
      g = nil
    end
    out:insert(el)
  end
  return any and out or nil   -- a list without a member stays as it is (pandoc need not read it back)
end

local function member(el)
  local g, n = groups[tonumber(el.attributes['alt-group'])], tonumber(el.attributes['alt-n'])
  if not g then return nil end
  if n == 1 then g.chosen, g.missing = choose(g.conds) end
  el.attributes['alt-group'], el.attributes['alt-n'], el.attributes.alt = nil, nil, n == g.chosen and 'taken' or 'untaken'
  if n > 1 or not g.missing then return el end
  local note = B.span(B.not_measured(g.missing), 'missing')
  return List({ el.t == 'Div' and pandoc.Div(pandoc.Para(note), pandoc.Attr('', { 'missing' })) or note, el })
end

function Pandoc(doc)
  B.setup(doc)
  local res = doc:walk({ Blocks = function(l) return tag(l, function() return false end) end,
                         Inlines = function(l) return tag(l, B.is_blank) end })
  return B.finish(res:walk({ traverse = 'topdown', Span = member,
                            Div = function(d) B.follow(d); return member(d) end }))
end
