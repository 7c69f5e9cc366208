-- records.lua -- the blocks that show records, for values.lua: a record's output box ({{output NAME}})
-- and every record of the set with its values ({{records}}), built as document nodes from the table.
local B = require('book')
local List, text, span, mark = pandoc.List, B.text, B.span, B.mark
local M = {}

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

-- Lines as text, each as show(line) makes it; of more than 60, only the first 40, the last 10 and
-- those keep(line) asks for, a mark for each run of the others, so that any record fits the page.
local function shorten(lines, noun, show, keep)
  local n, out, hid = #lines, {}, 0
  for i = 1, n + 1 do
    local l = lines[i]
    if l and not (n <= 60 or i <= 40 or i > n - 10 or keep and keep(l)) then hid = hid + 1 else
      if hid > 0 then out[#out + 1], hid = ('[%d %s not shown]'):format(hid, noun), 0 end
      out[#out + 1] = l and show(l) or nil
    end
  end
  return table.concat(out, '\n')
end

-- The console text: commands, their output, their standard error after [stderr];
-- each line of output cut after 500 characters; a command is never cut, nor folded away.
local function is_command(s) return s:sub(1, 2) == '$ ' end
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
  return shorten(out, 'lines', function(s) return expand_tabs(is_command(s) and s or cut(s, 500)) end, is_command)
end

-- The console block of record r; TeX's log names it, and where it is.
function M.output_block(r, loc)
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
function M.records_blocks(loc)
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
    out:insert(M.output_block(r, loc))
    local fold = B.is_html and #r.values > 0 and ('<details class="values"><summary>%d value%s</summary>'):format(#r.values, #r.values == 1 and '' or 's')
    if fold then out:insert(pandoc.RawBlock('html', fold)) end
    if #r.values > 0 then out:insert(pandoc.CodeBlock(values_text(r), pandoc.Attr('', { 'values' }))) end
    if fold then out:insert(pandoc.RawBlock('html', '</details>')) end
  end
  return out
end

return M
