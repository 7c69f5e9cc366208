-- values.lua -- the book's pandoc filter that puts the measurements into the prose (notes/design.md,
-- "Directives"): each {{...}} in the text, never in code, becomes document nodes built from the values
-- table (-M values=...), so nothing is escaped by hand: a value, with where it came from in its HTML
-- title; a ratio; a claim, which shows nothing but marks the sentence that the set contradicts; the
-- runs or spread of a record; a provenance key; a record's output, or every record (records.lua). Of the
-- alternatives it keeps the one taken, and checks the others quietly.
package.path = PANDOC_SCRIPT_FILE:gsub('[^/]*$', '') .. '?.lua;' .. package.path
local B, E, R = require('book'), require('expr'), require('records')
local List, text, span, mark = pandoc.List, B.text, B.span, B.mark
local LITERAL = 'a literal {{ is written in a span of class literal, [{{1}, {2}}]{.literal}'

-- A directive's text as inlines: marked if it read a stale record, replaced if it read a missing one.
-- A fresh value says in its HTML where it came from: its record and line, its range, the chapter line.
local function shown(s, loc, v)
  local r = loc.unfresh:find_if(function(x) return x.status == 'missing' end) or loc.unfresh[1]
  if not r and v and B.is_html then
    local range = (v.spread == 'launches' and 'launches ' or 'runs ') .. v.min .. '\u{2013}' .. v.max
    return List({ span(text(s), 'value', { { 'title', ('%s.rec, line %s; %s; %s'):format(v.name, v.line or '?', range, loc.at) },
      { 'data-record', v.name }, { 'data-line', v.line or '' }, { 'data-min', v.min }, { 'data-max', v.max },
      { 'data-spread', v.spread }, { 'data-source', loc.at } }) })
  end
  if not r then return text(s) end
  if r.status == 'missing' then return List({ span(B.not_measured(r), 'missing') }) end
  return List({ span(text(s) .. List({ pandoc.Space(), span(mark(List({ pandoc.Str('(stale)') })), 'stale-note') }),
                     'stale', { { 'title', 'stale: ' .. r.why .. '; ' .. B.remeasure(r) .. ' again' } }) })
end

-- x rounded half away from zero: one decimal under 10, none from 10 on (9.96 is "10 times").
local function ratio_text(x)
  local function round(d)
    local r = math.floor(math.abs(x) * 10 ^ d + 0.5) / 10 ^ d
    return string.format('%.' .. d .. 'f', x < 0 and r > 0 and -r or r)
  end
  return (math.abs(tonumber(round(1))) < 10 and round(1) or round(0)) .. ' times'
end

-- A directive's inlines, 'claim' (it shows nothing), { contradicted = WHY }, or in a paragraph of its
-- own (para) blocks.
local function expand(d, loc, para)
  if (d.kind == 'output' or d.kind == 'records') and not para then
    B.fail((d.kind == 'output' and 'an output block' or 'the list of records') .. ' stands alone in its paragraph, between blank lines')
  elseif d.kind == 'output' then
    return R.output_block(B.record(d.name, loc), loc)
  elseif d.kind == 'records' then
    return R.records_blocks(loc)
  elseif d.kind == 'runs' then
    return shown(B.record(d.name, loc).runs, loc)
  elseif d.kind == 'claim' then
    local ok, why = E.compare(d, loc, 'the claim')
    if ok == false then loc.fails = why; return { contradicted = why } end
    return loc.unfresh:find_if(function(r) return r.status == 'missing' end) and shown(nil, loc) or 'claim'
  elseif d.kind == 'prov' then   -- a time of day is shown as its day
    local v = B.tbl().set[d.key]
    if v then return text(v:match('^(%d%d%d%d%-%d%d%-%d%d)T[%d:]+Z$') or v) end
    B.message(loc, 'warning', 'the records of the set have no ' .. d.key .. ', or do not agree on it; make run measures them again')
    return List({ span(mark(text(d.key .. ' unknown')), 'missing') })
  elseif d.kind == 'value' or d.kind == 'spread' then
    local v = E.resolve(d.a, loc)
    if d.kind == 'value' then return shown(v and E.value_text(v, d.a.stat), loc, v) end
    return shown(v and (v.spread == 'launches' and 'launch' or 'run'), loc)   -- what its min and max span
  end
  local a, b = E.eval_sides(d, loc, 'the ratio')
  if b == 0 then B.fail(d.rhs.terms[1].text .. ' is zero, so the ratio has no value') end
  return shown(a and b and ratio_text(a / b), loc)
end

-- The nodes of the directive {{inner}} and its warnings; nil after an error in it (reported alone).
local function directive(inner, para)
  local loc = B.locate('{{' .. inner .. '}}')
  local res = B.try(loc, function()
    local ok, d = pcall(E.parse, inner)
    if not ok and type(d) == 'table' and (inner:find('[{}]') or not inner:find('^%s*[%a(]')) then d.msg = d.msg .. '; ' .. LITERAL end
    return expand(ok and d or error(d, 0), loc, para)
  end)
  if res == nil then return nil end
  B.report(loc)
  if loc.fails then B.message(loc, 'warning', 'the claim fails: ' .. loc.fails) end
  return res
end

local function has_directive(el) return el.t == 'Str' and el.text:find('{{', 1, true) end

-- The text of inlines that a directive may span, or nil if they hold markup.
local function plain_text(ils)
  local parts = {}
  for _, el in ipairs(ils) do
    local q = el.t == 'Quoted' and (el.quotetype == 'DoubleQuote' and '"' or "'")
    -- A TeX word or an HTML tag is text as the author typed it (a label may hold \alpha or <b>).
    local t = (el.t == 'Str' or el.t == 'RawInline') and el.text or el.t == 'Space' and ' '
              or q and plain_text(el.content)
    if not t then return nil end
    parts[#parts + 1] = q and q .. t .. q or t
  end
  return table.concat(parts)
end

-- A claim the set contradicts marks, in place, the sentence it ends (from the end of the sentence
-- before it) and says what was claimed and measured (design.md, "One stale policy").
local function contradict(out, why)
  while #out > 0 and B.is_blank(out[#out]) do out:remove(#out) end
  local s = math.max(#out - 1, 0)
  while s > 0 and not (out[s].t == 'Str' and out[s].text:find('[.!?:][)"\'\u{2019}\u{201D}]*$')) do s = s - 1 end
  while s < #out and B.is_blank(out[s + 1]) do s = s + 1 end
  local sentence = List()
  for i = s + 1, #out do sentence:insert(out[i]); out[i] = nil end
  if #sentence > 0 then
    out:insert(span(mark(sentence, 'bookcontradicted'), 'contradicted', { { 'title', why } }))
    out:insert(pandoc.Space())
  end
  out:insert(span(mark(text('[not true on this GPU: the claim ' .. why .. ' fails]')), 'contradicted-note'))
end

-- An inline list with its directives expanded (nil if it has none). A claim takes one blank next
-- to it away with it, so that it leaves no doubled blank behind.
local function scan(ils)
  if not ils:find_if(has_directive) then return nil end
  local out, drop, i = List(), false, 1
  local function push(el)
    if drop and B.is_blank(el) then drop = false; return end
    drop = false
    if el.t == 'Str' and #out > 0 and out[#out].t == 'Str' then out[#out] = pandoc.Str(out[#out].text .. el.text)
    else out:insert(el) end
  end
  local function push_text(s) if s ~= '' then push(pandoc.Str(s)) end end
  while i <= #ils do
    local el, s = ils[i], has_directive(ils[i])
    i = i + 1
    if not s then
      push(el)
    else
      push_text(el.text:sub(1, s - 1))
      -- The directive runs to the next }}, in this Str or in a later node of the same line.
      local after, inner, bad, rest = i, el.text:sub(s + 2)
      while not inner:find('}}', 1, true) do
        local n = ils[i]
        local t = n and plain_text({ n })
        if not n or n.t == 'SoftBreak' or n.t == 'LineBreak' then bad = 'does not close on its line'; break end
        if not t then bad = 'holds markup (' .. n.t .. '); write it as plain text'; break end
        inner, i = inner .. t, i + 1
      end
      if bad then
        B.message(B.locate('{{' .. inner, true), 'error', "the directive '{{" .. B.canon(inner) .. "' " .. bad .. '; ' .. LITERAL)
        push_text('{{' .. el.text:sub(s + 2))   -- the nodes after it stay as they are
        i = after
      else
        inner, rest = inner:match('^(.-)}}(.*)$')
        local res = directive(inner)
        if res == 'claim' then
          if #out > 0 and B.is_blank(out[#out]) then out:remove(#out) else drop = true end
        elseif res and res.contradicted then
          contradict(out, res.contradicted)
        else
          for _, x in ipairs(res or { pandoc.Str('{{' .. inner .. '}}') }) do push(x) end
        end
        if rest ~= '' then i = i - 1; ils[i] = pandoc.Str(rest) end   -- scanned in its turn
      end
    end
  end
  return out
end

-- A paragraph that is one {{output NAME}} or {{records}} and nothing else: its blocks, not walked.
local function block_para(el)
  local inner = (plain_text(el.content) or ''):match('^%s*{{([^{}]*)}}%s*$')
  local head = inner and inner:match('^%s*(%a+)')
  if head ~= 'output' and head ~= 'records' then return nil end
  return directive(inner, true) or el, false
end

-- Alternatives (alternatives.lua chose): the one taken stays, the others are checked quietly and go.
local walker
local function alternative(el)
  if el.classes:includes('literal') then return el.content, false end   -- text as written, {{ and all
  if el.attributes.alt == nil then return nil end
  local untaken = el.attributes.alt == 'untaken'
  B.quiet = B.quiet + (untaken and 1 or 0)
  local body = (el.t == 'Div' and pandoc.Div or pandoc.Span)(el.content):walk(walker)
  B.quiet = B.quiet - (untaken and 1 or 0)
  return untaken and {} or body.content, false
end

-- No blank or line break at either end of a paragraph, and no paragraph that claims left empty.
local function trim(el)
  local c, n = el.content, #el.content
  local function edge(x) return B.is_blank(x) or x.t == 'LineBreak' end
  while #c > 0 and edge(c[#c]) do c:remove(#c) end
  while #c > 0 and edge(c[1]) do c:remove(1) end
  if #c == 0 and el.t ~= 'Header' then return {} end
  if #c ~= n then el.content = c; return el end
end

-- A tag in the prose is text: the book is woven to the PDF too, where raw HTML would vanish, and an
-- author's <<name>> (noweb's @<< escape) is no tag <name>. Comments stay comments.
local function raw_text(r) if r.format == 'html' and not r.text:find('^<!%-%-') then return pandoc.Str(r.text) end end
walker = { traverse = 'topdown', Span = alternative, Inlines = scan, Para = block_para, Plain = block_para,
           RawInline = raw_text, Div = function(d) B.follow(d); return alternative(d) end }

function Pandoc(doc)
  B.setup(doc)
  local res = doc:walk(walker):walk({ Para = trim, Plain = trim, Header = trim })
  -- The page's <title> is text: a value in a chapter's title shows there as what it reads.
  if res.meta.pagetitle then res.meta.pagetitle = pandoc.utils.stringify(res.meta.pagetitle) end
  return B.finish(res)
end
