-- values.lua -- the book's pandoc filter that puts the measurements into the prose (notes/design.md,
-- "Directives"): each {{...}} in the text, never in code, becomes document nodes built from the values
-- table (-M values=...), so nothing is escaped by hand: a value, with where it came from in its HTML
-- title; a ratio; a claim, which shows nothing but marks the sentence that the set contradicts; the
-- runs or spread of a record; a provenance key; a record's output, or every record. Of the
-- alternatives it keeps the one taken, and checks the others quietly.
package.path = PANDOC_SCRIPT_FILE:gsub('[^/]*$', '') .. '?.lua;' .. package.path
local B, E = require('book'), require('expr')
local List, text, span, mark = pandoc.List, B.text, B.span, B.mark

local function stale_note(r) return span(mark(text('stale: ' .. r.why .. '; ' .. B.remeasure(r) .. ' again')), 'stale-note') end

local function provenance_text(r)
  local p = r.prov
  return table.concat({ p.gpu or '?', 'driver ' .. (p.driver or '?'), 'CUDA ' .. (p.cuda_runtime or '?'),
                        'sm_' .. (p.compute_capability or '?'):gsub('%.', ''), (p.date or ''):match('^[^T]*'),
                        r.runs == '1' and '1 run' or 'representative of ' .. r.runs .. ' runs' }, ' \u{B7} ')
end

-- s, or its first n characters and a mark of the rest; tabs as blanks at stops of 4, as pandoc's
-- reader has them in code.
local function cut(s, n)
  local len = utf8.len(s) or #s
  return len <= n and s or ('%s [%d characters not shown]'):format(s:sub(1, utf8.offset(s, n + 1) - 1), len - n)
end
local function expand_tabs(s) return (s:gsub('([^\t]*)\t', function(b) return b .. (' '):rep(4 - utf8.len(b) % 4) end)) end

-- Lines as text, each as show(line) makes it; of more than 60, only the first 40 and the last 10
-- around a mark, so that any record fits the page (design.md).
local function shorten(lines, noun, show)
  local n, out = #lines, {}
  for i = 1, n do out[#out + 1] = (n <= 60 or i <= 40 or i > n - 10) and show(lines[i]) or nil end
  if n > 60 then table.insert(out, 41, ('[%d %s not shown]'):format(n - 50, noun)) end
  return table.concat(out, '\n')
end

-- The console text: commands, their output, their standard error after [stderr], an exit status;
-- each line cut after 500 characters.
local function console_text(r)
  local out, err = {}, {}
  local function add(s) out[#out + 1] = s end
  local function flush() if #err > 0 then add('[stderr]'); for _, e in ipairs(err) do add(e) end; err = {} end end
  for _, key in ipairs(r.kind == 'program' and { 'compile', 'command' } or {}) do
    if r.prov[key] then add('$ ' .. r.prov[key]) end
  end
  for _, l in ipairs(r.lines) do
    if l.kind == '$' then flush(); add('$ ' .. l.text) elseif l.kind == 'e' then err[#err + 1] = l.text else add(l.text) end
  end
  flush()
  if (r.prov.exit or '0') ~= '0' then add('[exit status ' .. r.prov.exit .. ']') end
  return shorten(out, 'lines', function(s) return expand_tabs(cut(s, 500)) end)
end

-- The console block of record r; TeX's log names it, and where it is.
local function output_block(r, loc)
  if r.status == 'missing' then return pandoc.Div(pandoc.Para(B.not_measured(r)), pandoc.Attr('', { 'missing' })) end
  local para = List({ span(text(provenance_text(r)), 'provenance') })
  if r.status ~= 'fresh' then para:extend({ pandoc.Space(), stale_note(r) }) end
  local where = ('record %s, %s'):format(r.name, loc.at):gsub('[^%w_./:, -]', '?')   -- as TeX can write it
  return pandoc.Div({
    pandoc.RawBlock('latex', '\\typeout{book: the output of ' .. where .. '}\n\\begin{bookoutput}'),
    pandoc.CodeBlock(console_text(r), pandoc.Attr('', { 'console' })),
    pandoc.RawBlock('latex', '\\bookprovenance'),
    pandoc.Para(para),
    pandoc.RawBlock('latex', '\\end{bookoutput}'),
  }, pandoc.Attr('', { 'output', r.status ~= 'fresh' and 'stale' or nil }))
end

-- A record's values, one a line in aligned columns: NAME:L.N, label (cut at 40 characters), median,
-- minimum, maximum, unit, and what the minimum and maximum span (runs or launches). The HTML has
-- them all, folded; the PDF the first and the last.
local function values_text(r)
  local rows, width = { { 'value', 'label', 'median', 'min', 'max', 'unit', 'over' } }, {}
  for _, v in ipairs(r.values) do rows[#rows + 1] = { r.name .. ':' .. v.pos, cut(v.label, 40), v.med, v.min, v.max, v.unit, v.spread } end
  for i = 1, #rows do for c, s in ipairs(rows[i]) do width[c] = math.max(width[c] or 0, utf8.len(s)) end end
  for i, row in ipairs(rows) do
    for c, s in ipairs(row) do
      local pad = (' '):rep(width[c] - utf8.len(s))
      row[c] = (c >= 3 and c <= 5) and pad .. s or c < #row and s .. pad or s   -- numbers to the right
    end
    rows[i] = table.concat(row, '  ')
  end
  return B.is_html and table.concat(rows, '\n') or shorten(rows, 'values', tostring)
end

-- Every record of the set: each one's heading, runs, stale note, console and values.
local function records_blocks(loc)
  local T = B.tbl()
  local s, n = T.set, #T.names
  local made = (s.gpu and ' on an ' .. s.gpu or '') .. (s.driver and ' with driver ' .. s.driver or '')
    .. (s.cuda_runtime and (s.driver and ' and' or ' with') .. ' CUDA ' .. s.cuda_runtime or '')
  local intro = text('The measurement set') .. List({ pandoc.Space(), pandoc.Code(B.set or '?'), pandoc.Space() })
    .. text(('holds %d record%s%s%s. Each shows its representative run; the values are the medians over its '
      .. 'runs, with the minimums and maximums over its runs or, where a program printed the range of its launches, '
      .. 'over those, as the chapters quote them.'):format(n, n == 1 and '' or 's',
      made ~= '' and ', made' .. made or '', s.date and ' (the latest on ' .. s.date:match('^[^T]*') .. ')' or ''))
  local out = List({ pandoc.Para(intro) })
  for _, name in ipairs(T.names) do
    local r = B.record(name, loc)
    out:insert(pandoc.Header(2, { pandoc.Code(name) }, pandoc.Attr('record-' .. name)))
    if r.status ~= 'missing' then
      out:insert(pandoc.Para(text(('%s run%s, %.1f s in all.'):format(r.runs, r.runs == '1' and '' or 's', tonumber(r.wall) or 0))))
    end
    if r.status == 'stale' then out:insert(pandoc.Para({ stale_note(r) })) end
    out:insert(output_block(r, loc))
    local fold = B.is_html and #r.values > 0 and ('<details class="values"><summary>%d value%s</summary>'):format(#r.values, #r.values == 1 and '' or 's')
    if fold then out:insert(pandoc.RawBlock('html', fold)) end
    if #r.values > 0 then out:insert(pandoc.CodeBlock(values_text(r), pandoc.Attr('', { 'values' }))) end
    if fold then out:insert(pandoc.RawBlock('html', '</details>')) end
  end
  return out
end

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
    return output_block(B.record(d.name, loc), loc)
  elseif d.kind == 'records' then
    return records_blocks(loc)
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
  elseif d.kind == 'value' then
    local v = E.resolve(d.a, loc)
    return shown(v and E.value_text(v, d.a.stat), loc, v)
  elseif d.kind == 'spread' then   -- what the value's minimum and maximum span: a launch or a run
    local v = E.resolve(d.a, loc)
    return shown(v and (v.spread == 'launches' and 'launch' or 'run'), loc)
  end
  local a, b = E.eval_sides(d, loc, 'the ratio')
  if b == 0 then B.fail(d.rhs.terms[1].text .. ' is zero, so the ratio has no value') end
  return shown(a and b and ratio_text(a / b), loc)
end

-- The nodes of the directive {{inner}} and its warnings; nil after an error in it (reported alone).
local function directive(inner, para)
  local loc = B.locate('{{' .. inner .. '}}')
  local res = B.try(loc, function() return expand(E.parse(inner), loc, para) end)
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
    local t = el.t == 'Str' and el.text or el.t == 'Space' and ' ' or q and plain_text(el.content)
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
      local after, inner, bad = i, el.text:sub(s + 2), nil
      while not inner:find('}}', 1, true) do
        local n = ils[i]
        local t = n and plain_text({ n })
        if not n or n.t == 'SoftBreak' or n.t == 'LineBreak' then bad = 'does not close on its line'; break end
        if not t then bad = 'holds markup (' .. n.t .. '); write it as plain text'; break end
        inner, i = inner .. t, i + 1
      end
      if bad then
        B.message(B.locate('{{' .. inner, true), 'error', "the directive '{{" .. B.canon(inner) .. "' " .. bad)
        push_text('{{' .. el.text:sub(s + 2))   -- the nodes after it stay as they are
        i = after
      else
        local e = inner:find('}}', 1, true)
        local rest = inner:sub(e + 2)
        inner = inner:sub(1, e - 1)
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

walker = { traverse = 'topdown', Span = alternative, Inlines = scan, Para = block_para, Plain = block_para,
           Div = function(d) B.follow(d); return alternative(d) end }

function Pandoc(doc)
  B.setup(doc)
  B.nerrors = tonumber(doc.meta.errors and pandoc.utils.stringify(doc.meta.errors) or '0')
  local res = doc:walk(walker):walk({ Para = trim, Plain = trim, Header = trim })
  res.meta.errors = pandoc.MetaString(tostring(B.nerrors))
  return res
end
