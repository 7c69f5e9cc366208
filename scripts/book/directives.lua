-- directives.lua -- the pandoc filter that puts the measurements into the book (notes/design.md,
-- "Directives"): each {{...}} in the prose's text, never in code, becomes document nodes built from
-- the values table (-M values=...), so nothing is escaped by hand. It also numbers the exercises,
-- sets chunk-use lines and links between chapters for the PDF, and dates the book by its latest
-- measurement. Messages say FILE:LINE; after any error pandoc exits 1.

local List = pandoc.List
local is_html, is_latex = FORMAT:match('html') ~= nil, FORMAT:match('latex') ~= nil

-- ---- Messages -------------------------------------------------------------------------------
local check, nerrors = false, 0 -- check mode (-M check=true) makes every warning an error
local of_set = ''               -- 'set NAME: ' where several sets are woven, so a message says whose
local quiet = 0                 -- inside an alternative not taken: its warnings are not this set's
local source                    -- the chapter: -M source, the latest .source marker, or the input
local lines_of, seen = {}, {}   -- file -> its lines (canonical); directive -> how many so far

-- Smart punctuation back to what the author typed, so that the text and the chapter compare equal.
local ASCII = { ['\u{2018}'] = "'", ['\u{2019}'] = "'", ['\u{201C}'] = '"', ['\u{201D}'] = '"',
                ['\u{2014}'] = '---', ['\u{2013}'] = '--', ['\u{2026}'] = '...', ['\u{A0}'] = ' ' }
local function canon(s)
  s = s:gsub('\\(%p)', '%1'):gsub(utf8.charpattern, ASCII)
  return (s:gsub('%s+', ' '):gsub('^ ', ''):gsub(' $', ''))
end

-- FILE:LINE of the k-th directive with this text: the line of its k-th occurrence in the chapter
-- (for one that does not close, at the end of a line).
local function locate(text, unclosed)
  local key = canon(text)
  local id = source .. '\0' .. (unclosed and '\0' or '') .. key
  seen[id] = (seen[id] or 0) + 1
  if not lines_of[source] then
    local ok, lines = pcall(io.lines, source)   -- unreadable: its messages say FILE alone
    lines_of[source] = {}
    for l in ok and lines or function() end do table.insert(lines_of[source], canon(l)) end
  end
  local k, pat, at = seen[id], key:gsub('%p', '%%%0') .. (unclosed and '$' or ''), source
  for i, l in ipairs(lines_of[source]) do
    k = k - select(2, l:gsub(pat, ''))
    if k <= 0 then at = source .. ':' .. i; break end
  end
  return { at = at, key = not unclosed and key, unfresh = List() }
end

local function message(loc, severity, msg)
  if severity == 'warning' and quiet > 0 then return end
  if severity == 'warning' and check then severity = 'error' end
  if severity == 'error' then nerrors = nerrors + 1 end
  io.stderr:write(loc.at .. ': ' .. severity .. ': ' .. of_set .. (loc.key and loc.key .. ': ' or '') .. msg .. '\n')
end

-- An error in one directive: raised here, reported at the directive by directive().
local function fail(msg) error({ msg = msg }, 0) end
-- The end of the run, at once (pandoc would turn a raised error into text).
local function fatal(msg) io.stderr:write('directives.lua: ' .. msg .. '\n'); os.exit(1) end

-- ---- The values table (design.md), read when a directive first needs it ----------------------
local T, values_path    -- T = { set = {KEY = VALUE}, rec = {NAME = record}, names = {NAME, ...} }
local ESCAPES = { ['\\'] = '\\', t = '\t', n = '\n' }
local BIDI = {}   -- the bidirectional controls U+202A..202E, U+2066..2069, which reorder text: U+FFFD
for c = 0x202A, 0x2069 do BIDI[utf8.char(c)] = (c <= 0x202E or c >= 0x2066) and '\u{FFFD}' or nil end

local function tbl()
  if T then return T end
  if not values_path then fatal('error: no values table: pandoc needs -M values=build/values/SET.tsv') end
  local f, why = io.open(values_path)
  if not f then fatal('error: cannot read the values table: ' .. why) end
  T = { set = {}, rec = {}, names = {} }
  for l in f:lines() do
    local row = {}
    l = l:gsub('\xE2[\x80\x81].', BIDI)
    for field in (l .. '\t'):gmatch('([^\t]*)\t') do row[#row + 1] = field:gsub('\\(.)', ESCAPES) end
    local kind, r = row[1], T.rec[row[2]]
    if kind == 'set' then
      T.set[row[2]] = row[3]
    elseif kind == 'record' then
      T.rec[row[2]] = { name = row[2], status = row[3], why = row[4], runs = row[5], kind = row[6],
                        wall = row[7], prov = {}, values = {}, lines = {} }
      table.insert(T.names, row[2])
    elseif kind == 'prov' then
      r.prov[row[3]] = row[4]
    elseif kind == 'line' then
      table.insert(r.lines, { kind = row[3], text = row[4] })
    elseif kind == 'value' then
      table.insert(r.values, { pos = row[3], label = row[4], occ = tonumber(row[5]), med = row[7],
                               min = row[8], max = row[9], unit = row[11], spread = row[12] or 'runs' })
    end
  end
  f:close()
  return T
end

local function remeasure(r) return 'make run ONLY=' .. r.name .. ' measures it' end

-- Record NAME; the directive keeps those it reads that are not fresh, to mark and warn of them.
local function record(name, loc)
  local r = tbl().rec[name] or fail('no program or session ' .. name .. ' in the values table (it has '
                                    .. table.concat(T.names, ', ') .. ')')
  if r.status ~= 'fresh' and not loc.unfresh:includes(r) then loc.unfresh:insert(r) end
  return r
end

-- ---- Expressions: all parsing and evaluation of a directive's text ---------------------------
--   directive := claim SIDE CMP SIDE | output NAME | runs NAME | spread REF | records | KEY | SIDE
--   (KEY: a provenance key of the set, a-z, 0-9 and _, whatever make run recorded)
--   SIDE := TERM {(* | /) TERM}      CMP := < <= > >= ==      (operators stand between blanks)
--   TERM := NUMBER | REF | min(REF) | max(REF)      REF := NAME:L.N | NAME: LABEL | NAME: LABEL #K
-- A SIDE standing alone is one REF term (a value) or REF / REF (a ratio, whose two terms are its sides).
local CMP = { ['<'] = function(a, b) return a < b end, ['<='] = function(a, b) return a <= b end,
              ['>'] = function(a, b) return a > b end, ['>='] = function(a, b) return a >= b end,
              ['=='] = function(a, b) return math.abs(a - b) <= 1e-9 * math.max(math.abs(a), math.abs(b)) end }
local NAME = '[%w_%.%-]+'

local function parse_term(t)
  local num = t:match('^[-+]?[%d.][%d.eE+-]*$') and tonumber(t)
  if num then return { num = num, text = t } end
  local stat, inner = t:match('^(m[ai][nx])%((.*)%)$')
  if stat ~= 'min' and stat ~= 'max' then stat, inner = 'med', t end
  local name, rest = inner:match('^(' .. NAME .. '):(.*)$')
  if not name then fail("expected a number, NAME:L.N, NAME: LABEL, min(REF) or max(REF), found '" .. t .. "'") end
  local l, n = rest:match('^(%d+)%.(%d+)$')
  if l then return { name = name, stat = stat, text = t, pos = tonumber(l) .. '.' .. tonumber(n) } end
  local label, k = rest:match('^%s*(.-)%s+#(%d+)$')
  label = label or rest:match('^%s*(.-)%s*$')
  if label == '' then fail("expected L.N or a label after '" .. name .. ":', found '" .. t .. "'") end
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
      if #words == 0 then
        fail('expected a term ' .. (w and "before '" .. w .. "'" or 'at the end') .. ' of ' .. what)
      end
      table.insert(side.terms, parse_term(table.concat(words, ' ')))
      side.ops[#side.terms + 1], words = w, {}
    end
  end
  return side
end

local function parse_directive(inner)
  local tokens, cmps = {}, {}
  for w in inner:gmatch('%S+') do
    tokens[#tokens + 1] = w
    if CMP[w] then cmps[#cmps + 1] = #tokens end
  end
  local s, head = table.concat(tokens, ' '), tokens[1]
  if not head then fail('expected a directive inside {{ }}, found nothing') end
  if head == 'claim' then
    local at = cmps[1]
    if #cmps ~= 1 then fail((at and 'expected one comparison' or 'expected one of < <= > >= == between blanks')
                            .. " in the claim '" .. s .. "'") end
    return { kind = 'claim', op = tokens[at], lhs = parse_side(tokens, 2, at - 1, 'the left side'),
             rhs = parse_side(tokens, at + 1, #tokens, 'the right side') }
  elseif head == 'output' or head == 'runs' then
    if #tokens ~= 2 or not tokens[2]:match('^' .. NAME .. '$') then
      fail('expected ' .. head .. " NAME, found '" .. s .. "'")
    end
    return { kind = head, name = tokens[2] }
  elseif head == 'spread' then
    if #tokens < 2 then fail("expected spread REF, found '" .. s .. "'") end
    local ref = parse_term(table.concat(tokens, ' ', 2))
    if not ref.name or ref.stat ~= 'med' then fail("expected spread REF, found '" .. s .. "'") end
    return { kind = 'spread', a = ref }
  elseif #tokens == 1 and head:match('^[%l%d_]+$') then
    return { kind = head == 'records' and head or 'prov', key = head }
  elseif #cmps > 0 then
    fail('a comparison belongs in a claim: {{claim ' .. s .. '}}')
  end
  local side = parse_side(tokens, 1, #tokens, 'the value')
  local a, b = side.terms[1], side.terms[2]
  if #side.terms == 1 and a.name then return { kind = 'value', a = a } end
  if #side.terms == 2 and side.ops[2] == '/' and a.name and b.name then
    return { kind = 'ratio', lhs = { terms = { a }, ops = {} }, rhs = { terms = { b }, ops = {} } }
  end
  fail("expected REF, min(REF), max(REF) or REF / REF, found '" .. s .. "'")
end

-- The value row a REF names, and its record; a missing record has no value (nil).
local function resolve(ref, loc)
  local r = record(ref.name, loc)
  if r.status == 'missing' then return nil, r end
  local stale = r.status ~= 'fresh' and ' (the record is stale: ' .. r.why .. ')' or ''
  if not r.by_pos then   -- the record's values by position and by label, built once
    r.by_pos, r.by_label, r.labels = {}, {}, {}
    for _, v in ipairs(r.values) do
      local key = canon(v.label)
      r.by_pos[v.pos], r.by_label[key] = v, r.by_label[key] or {}
      table.insert(r.by_label[key], v)
      if #r.by_label[key] == 1 then r.labels[#r.labels + 1] = "'" .. v.label .. "'" end
    end
  end
  if r.by_pos[ref.pos or ''] then return r.by_pos[ref.pos], r end
  local rows, labels = ref.label and r.by_label[canon(ref.label)] or {}, r.labels
  -- A value the record lacks was not measured on this GPU (a set may hold fewer variants); a
  -- typo is caught where the author's own set is checked, where every warning is an error.
  local function lacks(why)
    loc.unfresh:insert({ name = ref.text, status = 'missing', lacks = why .. stale })
  end
  if ref.pos then return lacks(ref.name .. ' has no value ' .. ref.pos), r end
  if #rows == 0 then
    return lacks('no value of ' .. ref.name .. " is labelled '" .. ref.label .. "'; its labels: "
                 .. (#labels > 0 and table.concat(labels, ', ') or 'none')), r
  elseif ref.k then
    for _, v in ipairs(rows) do if v.occ == ref.k then return v, r end end
    return lacks(ref.name .. ' has no #' .. ref.k .. " of the values labelled '" .. ref.label .. "' (" .. #rows
                 .. ' of them)'), r
  elseif #rows > 1 then
    fail(#rows .. ' values of ' .. ref.name .. " are labelled '" .. ref.label .. "': add #1"
         .. (#rows > 2 and ', #2, ...' or '') .. ' or #' .. #rows)
  end
  return rows[1], r
end

-- A value as printed, with its unit after a non-breaking space: 4.3190 ms; 45%. Whole numbers of
-- five digits or more read better in prose grouped: 1,048,576.
local function value_text(v, stat)
  local n = v[stat]
  if n:match('^%-?%d%d%d%d%d+$') then
    n = n:reverse():gsub('(%d%d%d)', '%1,'):reverse():gsub('^(%-?),', '%1')
  end
  return n .. (v.unit == '-' and '' or v.unit == '%' and '%' or '\u{A0}' .. v.unit)
end

-- x rounded half away from zero: one decimal under 10, none from 10 on (9.96 is "10 times").
local function ratio_text(x)
  local function round(d)
    local r = math.floor(math.abs(x) * 10 ^ d + 0.5) / 10 ^ d
    return string.format('%.' .. d .. 'f', x < 0 and r > 0 and -r or r)
  end
  return (math.abs(tonumber(round(1))) < 10 and round(1) or round(0)) .. ' times'
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
    local x, txt, v, div = t.num, t.text, not t.num and resolve(t, loc), side.ops[i] == '/'
    bare = bare and t.num ~= nil
    if v then x, txt = tonumber(v[t.stat]), txt .. ' (' .. value_text(v, t.stat):gsub('\u{A0}', ' ') .. ')' end
    if v and v.unit ~= '-' then
      local kind, f = table.unpack(UNITS[v.unit] or { v.unit, 1 })
      units[kind] = units[kind] or { v.unit, f }
      x, power[kind] = x * f / units[kind][2], (power[kind] or 0) + (div and -1 or 1)
      if units[kind][1] ~= v.unit then txt = txt:sub(1, -2) .. (' = %.4g %s)'):format(x, units[kind][1]) end
    end
    if x == 0 and div then fail(t.text .. ' is zero, so ' .. what .. ' has no value') end
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
local function eval_sides(d, loc, what)
  local units = {}
  local a, ls, au, abare = eval_side(d.lhs, loc, what, units)
  local b, rs, bu, bbare = eval_side(d.rhs, loc, what, units)
  if a and b and au ~= bu and not abare and not bbare then
    fail(what .. "'s units do not convert into each other: " .. au .. ' against ' .. bu)
  end
  return a, b, ls, rs
end

-- Whether a comparison holds, and it with its values as text; nothing when a record is missing.
local function compare(d, loc, what)
  local a, b, ls, rs = eval_sides(d, loc, what)
  if a and b then return CMP[d.op](a, b), ls .. ' ' .. d.op .. ' ' .. rs end
end

-- Why a claim fails; nothing when it holds or a record is missing (whose own warning stands).
local function check_claim(d, loc)
  local ok, why = compare(d, loc, 'the claim')
  return ok == false and why or nil
end

-- ---- Rendering ------------------------------------------------------------------------------
-- Plain text as inlines: words and blanks (a non-breaking space stays inside its word).
local function text_inlines(s)
  local out = List()
  for w in s:gmatch('%S+') do out:extend({ pandoc.Space(), pandoc.Str(w) }) end
  out:remove(1)
  return out
end

local function span(ils, class, attrs) return pandoc.Span(ils, pandoc.Attr('', { class }, attrs)) end

-- The mark of what is not fresh (or, given cmd, contradicted): \bookstale of book/preamble.tex in the PDF.
local function mark(ils, cmd)
  if not is_latex then return ils end
  return List({ pandoc.RawInline('latex', '\\' .. (cmd or 'bookstale') .. '{') }) .. ils .. List({ pandoc.RawInline('latex', '}') })
end

local function stale_why(r) return 'stale: ' .. r.why .. '; ' .. remeasure(r) .. ' again' end
local function stale_note(r) return span(mark(text_inlines(stale_why(r))), 'stale-note') end
local function not_measured(r)
  return mark(text_inlines('not measured on this GPU: ' .. r.name .. (r.lacks and '' or ' (make run measures it)')))
end

-- A directive's text as inlines: marked if it read a stale record, replaced if it read a missing one.
local function shown(text, loc)
  local r = loc.unfresh:find_if(function(x) return x.status == 'missing' end) or loc.unfresh[1]
  if not r then return text_inlines(text) end
  if r.status == 'missing' then return List({ span(not_measured(r), 'missing') }) end
  local ils = text_inlines(text) .. List({ pandoc.Space(), span(mark(List({ pandoc.Str('(stale)') })), 'stale-note') })
  return List({ span(ils, 'stale', { { 'title', stale_why(r) } }) })
end

local function provenance_text(r)
  local p = r.prov
  return table.concat({ p.gpu, 'driver ' .. p.driver, 'CUDA ' .. p.cuda_runtime,
                        'sm_' .. p.compute_capability:gsub('%.', ''), p.date:match('^[^T]*'),
                        r.runs == '1' and '1 run' or 'representative of ' .. r.runs .. ' runs' }, ' \u{B7} ')
end

-- Tabs to blanks at stops of 4, counting characters, as pandoc's reader does in code.
local function expand_tabs(s)
  return (s:gsub('([^\t]*)\t', function(b) return b .. (' '):rep(4 - utf8.len(b) % 4) end))
end

-- s, or its first n characters and a mark of the rest.
local function cut(s, n)
  local len = utf8.len(s) or #s
  return len <= n and s or ('%s [%d characters not shown]'):format(s:sub(1, utf8.offset(s, n + 1) - 1), len - n)
end

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
  local function flush()
    if #err > 0 then add('[stderr]'); for _, e in ipairs(err) do add(e) end; err = {} end
  end
  for _, key in ipairs(r.kind == 'program' and { 'compile', 'command' } or {}) do
    if r.prov[key] then add('$ ' .. r.prov[key]) end
  end
  for _, l in ipairs(r.lines) do
    if l.kind == '$' then flush(); add('$ ' .. l.text)
    elseif l.kind == 'e' then err[#err + 1] = l.text
    else add(l.text)
    end
  end
  flush()
  if (r.prov.exit or '0') ~= '0' then add('[exit status ' .. r.prov.exit .. ']') end
  return shorten(out, 'lines', function(s) return expand_tabs(cut(s, 500)) end)
end

-- The console block of record r (design.md, {{output NAME}}); TeX's log names it, and where it is.
local function output_block(r, loc)
  if r.status == 'missing' then return pandoc.Div(pandoc.Para(not_measured(r)), pandoc.Attr('', { 'missing' })) end
  local para = List({ span(text_inlines(provenance_text(r)), 'provenance') })
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
-- minimum, maximum, unit, and what the minimum and maximum span (runs or launches).
local function values_text(r)
  local rows, width = { { 'value', 'label', 'median', 'min', 'max', 'unit', 'over' } }, {}
  for _, v in ipairs(r.values) do
    rows[#rows + 1] = { r.name .. ':' .. v.pos, cut(v.label, 40), v.med, v.min, v.max, v.unit, v.spread }
  end
  for i = 1, #rows do
    for c, s in ipairs(rows[i]) do width[c] = math.max(width[c] or 0, utf8.len(s)) end
  end
  for i, row in ipairs(rows) do
    for c, s in ipairs(row) do
      local pad = (' '):rep(width[c] - utf8.len(s))
      row[c] = (c >= 3 and c <= 5) and pad .. s or c < #row and s .. pad or s   -- numbers to the right
    end
    rows[i] = table.concat(row, '  ')
  end
  return shorten(rows, 'values', tostring)
end

-- Every record of the set (design.md, {{records}}): each one's heading, stale note, console and values.
local function records_blocks(loc)
  local s, n = tbl().set, #T.names
  local made = (s.gpu and ' on an ' .. s.gpu or '') .. (s.driver and ' with driver ' .. s.driver or '')
    .. (s.cuda_runtime and (s.driver and ' and' or ' with') .. ' CUDA ' .. s.cuda_runtime or '')
  local set = values_path:match('[^/]*$'):gsub('%.tsv$', '')
  local intro = text_inlines('The measurement set') .. List({ pandoc.Space(), pandoc.Code(set), pandoc.Space() })
    .. text_inlines(('holds %d record%s%s%s. Each shows its representative run; the values are the medians over its '
      .. 'runs, with the minimums and maximums over its runs or, where a program printed the range of its launches, '
      .. 'over those, as the chapters quote them.'):format(n, n == 1 and '' or 's',
      made ~= '' and ', made' .. made or '', s.date and ' (the latest on ' .. s.date:match('^[^T]*') .. ')' or ''))
  local out = List({ pandoc.Para(intro) })
  for _, name in ipairs(T.names) do
    local r = record(name, loc)
    out:insert(pandoc.Header(2, { pandoc.Code(name) }, pandoc.Attr('record-' .. name)))
    if r.status ~= 'missing' then
      out:insert(pandoc.Para(text_inlines(('%s run%s, %.1f s in all.'):format(r.runs, r.runs == '1' and '' or 's',
                                                                             tonumber(r.wall) or 0))))
    end
    if r.status == 'stale' then out:insert(pandoc.Para({ stale_note(r) })) end
    out:insert(output_block(r, loc))
    if #r.values > 0 then out:insert(pandoc.CodeBlock(values_text(r), pandoc.Attr('', { 'values' }))) end
  end
  return out
end

-- A directive's inlines, 'claim' (it shows nothing), or in a paragraph of its own (para) blocks.
local function expand(d, loc, para)
  if (d.kind == 'output' or d.kind == 'records') and not para then
    fail((d.kind == 'output' and 'an output block' or 'the list of records')
         .. ' stands alone in its paragraph, between blank lines')
  elseif d.kind == 'output' then
    return output_block(record(d.name, loc), loc)
  elseif d.kind == 'records' then
    return records_blocks(loc)
  elseif d.kind == 'runs' then
    return shown(record(d.name, loc).runs, loc)
  elseif d.kind == 'claim' then
    loc.fails = check_claim(d, loc)
    if loc.fails then return { contradicted = loc.fails } end
    return loc.unfresh:find_if(function(r) return r.status == 'missing' end) and shown(nil, loc) or 'claim'
  elseif d.kind == 'prov' then   -- a time of day is shown as its day
    local v = tbl().set[d.key]
    if v then return text_inlines(v:match('^(%d%d%d%d%-%d%d%-%d%d)T[%d:]+Z$') or v) end
    message(loc, 'warning', 'the records of the set have no ' .. d.key .. ', or do not agree on it; make run measures them again')
    return List({ span(mark(text_inlines(d.key .. ' unknown')), 'missing') })
  elseif d.kind == 'value' then
    local v = resolve(d.a, loc)
    return shown(v and value_text(v, d.a.stat), loc)
  elseif d.kind == 'spread' then   -- what the value's minimum and maximum span: a launch or a run
    local v = resolve(d.a, loc)
    return shown(v and (v.spread == 'launches' and 'launch' or 'run'), loc)
  end
  local a, b = eval_sides(d, loc, 'the ratio')
  if b == 0 then fail(d.rhs.terms[1].text .. ' is zero, so the ratio has no value') end
  return shown(a and b and ratio_text(a / b), loc)
end

local report
-- The nodes of the directive {{inner}} and its warnings; nil after an error in it (reported alone).
local function directive(inner, para)
  local loc = locate('{{' .. inner .. '}}')
  local ok, res = pcall(function() return expand(parse_directive(inner), loc, para) end)
  if not ok and type(res) ~= 'table' then error(res, 0) end
  if not ok then return message(loc, 'error', res.msg) end
  report(loc)
  if loc.fails then message(loc, 'warning', 'the claim fails: ' .. loc.fails) end
  return res
end

-- The warnings of what a directive or condition read that is not fresh.
function report(loc)
  for _, r in ipairs(loc.unfresh) do
    message(loc, 'warning', r.status == 'missing' and (r.lacks and r.lacks .. ', so it is shown as not measured'
                                                       or r.name .. ' is not measured; ' .. remeasure(r))
                            or r.name .. ' is stale (' .. r.why .. '); ' .. remeasure(r) .. ' again')
  end
end

-- ---- Directives in the text -----------------------------------------------------------------
local function is_blank(el) return el.t == 'Space' or el.t == 'SoftBreak' end
local function has_directive(el) return el.t == 'Str' and el.text:find('{{', 1, true) end

-- The text of inlines that a directive may span, or nil if they hold markup.
local function plain_text(ils)
  local parts = {}
  for _, el in ipairs(ils) do
    local q = el.t == 'Quoted' and (el.quotetype == 'DoubleQuote' and '"' or "'")
    local text = el.t == 'Str' and el.text or el.t == 'Space' and ' ' or q and plain_text(el.content)
    if not text then return nil end
    parts[#parts + 1] = q and q .. text .. q or text
  end
  return table.concat(parts)
end

-- A claim the set contradicts marks, in place, the sentence it ends (from the end of the sentence
-- before it) and says what was claimed and measured (design.md, "One stale policy").
local function contradict(out, why)
  while #out > 0 and is_blank(out[#out]) do out:remove(#out) end
  local s = math.max(#out - 1, 0)
  while s > 0 and not (out[s].t == 'Str' and out[s].text:find('[.!?:][)"\'\u{2019}\u{201D}]*$')) do s = s - 1 end
  while s < #out and is_blank(out[s + 1]) do s = s + 1 end
  local sentence = List()
  for i = s + 1, #out do sentence:insert(out[i]); out[i] = nil end
  local note = mark(text_inlines('[not true on this GPU: the claim ' .. why .. ' fails]'))
  if #sentence > 0 then
    out:insert(span(mark(sentence, 'bookcontradicted'), 'contradicted', { { 'title', why } }))
    out:insert(pandoc.Space())
  end
  out:insert(span(note, 'contradicted-note'))
end

-- An inline list with its directives expanded (nil if it has none). A claim takes one blank next
-- to it away with it, so that it leaves no doubled blank behind.
local function scan(ils)
  if not ils:find_if(has_directive) then return nil end
  local out, drop, i = List(), false, 1
  local function push(el)
    if drop and is_blank(el) then drop = false; return end
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
        message(locate('{{' .. inner, true), 'error', "the directive '{{" .. canon(inner) .. "' " .. bad)
        push_text('{{' .. el.text:sub(s + 2))   -- the nodes after it stay as they are
        i = after
      else
        local e = inner:find('}}', 1, true)
        local rest = inner:sub(e + 2)
        inner = inner:sub(1, e - 1)
        local res = directive(inner)
        if res == 'claim' then
          if #out > 0 and is_blank(out[#out]) then out:remove(#out) else drop = true end
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

-- ---- Alternatives (design.md, "Alternatives") -----------------------------------------------
-- Divs in a row, or spans with only blanks between them, that carry when="CONDITION" are one group.
-- A pre-pass tags the members (and drops the blanks between spans); the walk, in document order,
-- shows the one whose condition holds and walks the others quietly: their directives are still
-- parsed and read, so a branch this GPU does not take is checked too.
local groups, walker = {}, nil

local function tag(list, is_blank_between)
  local out, g = List(), nil
  for _, el in ipairs(list) do
    if (el.t == 'Div' or el.t == 'Span') and el.attributes.when then
      if g then while #out > 0 and is_blank_between(out[#out]) do out:remove(#out) end
      else g = List(); groups[#groups + 1] = { conds = g } end
      g:insert(el.attributes.when)
      el.attributes.when, el.attributes['alt-group'], el.attributes['alt-n'] = nil, tostring(#groups), tostring(#g)
    elseif not is_blank_between(el) then
      g = nil
    end
    out:insert(el)
  end
  return out
end

-- A condition: comparisons as in a claim, joined by 'and'; nil when a record is missing.
local function holds(cond, loc)
  local all, why = true, List()
  for part in (cond .. ' and '):gmatch('(.-) and ') do
    local ok, text = compare(parse_directive('claim ' .. part), loc, 'the condition')
    if ok == nil then return nil end
    all = all and ok
    why:insert(text)
  end
  return all, table.concat(why, ' and ')
end

-- Which member of group g the set chooses: g.chosen, or 0 when a record it needs is missing.
local function choose(g)
  local yes, shown_why, missing = List(), List(), nil
  for i, cond in ipairs(g.conds) do
    local loc = locate('when="' .. cond .. '"')
    local ok, res, why = pcall(holds, cond, loc)
    if not ok and type(res) ~= 'table' then error(res, 0) end
    if not ok then message(loc, 'error', res.msg) else report(loc) end
    missing = missing or (ok and res == nil and loc.unfresh[1])
    if res == true then yes:insert(i) end
    shown_why:insert(('%d. %s'):format(i, why or '?'))
    g.at = g.at or loc
  end
  g.chosen, g.missing = #yes == 1 and yes[1] or 0, missing
  if not missing and #yes ~= 1 then
    message(g.at, 'error', (#yes == 0 and 'none of the alternatives holds' or 'alternatives '
      .. table.concat(yes, ' and ') .. ' hold together') .. ' for this set; exactly one must: '
      .. table.concat(shown_why, '; '))
  end
end

local function alternative(el)
  local g = groups[tonumber(el.attributes['alt-group'])]
  local n = tonumber(el.attributes['alt-n'])
  if n == 1 then choose(g) end
  local taken = n == g.chosen
  quiet = quiet + (taken and 0 or 1)
  local body = (el.t == 'Div' and pandoc.Div or pandoc.Span)(el.content):walk(walker)
  quiet = quiet - (taken and 0 or 1)
  if taken then return body.content, false end
  if n > 1 or not g.missing then return {}, false end
  local note = span(not_measured(g.missing), 'missing')
  return el.t == 'Div' and pandoc.Div(pandoc.Para(note), pandoc.Attr('', { 'missing' })) or note, false
end

-- ---- Exercises (design.md, "Chapter syntax") -------------------------------------------------
local nexercise, used_ids = 0, {}   -- numbered in each chapter; ids unique in the whole PDF

local function exercise(div)
  nexercise = nexercise + 1
  local n = nexercise
  local id = div.identifier ~= '' and div.identifier or 'exercise-' .. n
  if used_ids[id] then id = source:match('[^/]*$'):gsub('%.nw$', '') .. '-' .. id end
  used_ids[id] = true
  local title = pandoc.read(div.attributes.title, 'markdown').blocks[1]
  local head = text_inlines('Exercise ' .. n .. ':') .. List({ pandoc.Space() })
  head:extend(title and title.content or {})
  local body = List()
  for _, b in ipairs(div.content) do
    local function is(class) return b.t == 'Div' and b.classes:includes(class) end
    if is('hint') then
      local c, label = List(b.content), pandoc.Strong({ pandoc.Str('Hint.') })
      if c[1] and c[1].t == 'Para' then c[1] = pandoc.Para(List({ label, pandoc.Space() }) .. c[1].content)
      else c:insert(1, pandoc.Para({ label })) end
      body:insert(pandoc.Div(c, pandoc.Attr('', { 'hint' })))
    elseif is('solution') then
      body:insert(is_html and pandoc.RawBlock('html', '<details class="solution">\n<summary>Solution</summary>')
        or pandoc.Header(4, text_inlines('Solution to exercise ' .. n),
                         pandoc.Attr(id .. '-solution', { 'solution', 'unnumbered', 'unlisted' })))
      body:extend(b.content)
      if is_html then body:insert(pandoc.RawBlock('html', '</details>')) end
    else
      body:insert(b)
    end
  end
  return { pandoc.Header(3, head, pandoc.Attr(id, { 'exercise', 'unnumbered' })),
           pandoc.Div(body, pandoc.Attr('', { 'exercise' })) }
end

-- ---- Identifiers in code -----------------------------------------------------------------------
-- In the HTML, each identifier in a chunk's code links to its definition (nw2md lists them in the
-- chunk's `uses`): the block is highlighted by pandoc's own HTML writer, and the links go into
-- its text between the tags, where identifiers stand as they are.
local function linked_code(div)
  local href = {}
  for name, to in (div.attributes.uses or ''):gmatch('([%w_]+)=(%S+)') do href[name] = to end
  div.attributes.uses = nil
  if not is_html or not next(href) then return div end
  local n = 0
  return div:walk({ CodeBlock = function(cb)
    n = n + 1
    cb.identifier = div.identifier .. '-' .. n   -- its lines' anchors are unique in the page
    -- The writer's options bring the highlighting, and the page template, which the marks cut away.
    local mark = pandoc.RawBlock('html', '<!--code-->')
    local html = pandoc.write(pandoc.Pandoc({ mark, cb, mark }, { pagetitle = 'code' }), 'html', PANDOC_WRITER_OPTIONS)
    html = html:match('<!%-%-code%-%->(.*)<!%-%-code%-%->'):gsub('>([^<]*)<', function(text)
      return '>' .. text:gsub('%f[%w_][%a_][%w_]*', function(w)
        return href[w] and ('<a class="ident" href="' .. href[w] .. '">' .. w .. '</a>') or w
      end) .. '<'
    end)
    return pandoc.RawBlock('html', html)
  end })
end

-- ---- The walks ------------------------------------------------------------------------------
-- In document order (topdown), so that markers, numbers and messages follow the text.
walker = {
  traverse = 'topdown',
  Span = function(el) if el.attributes['alt-group'] then return alternative(el) end end,
  Div = function(div)
    if div.attributes['alt-group'] then
      return alternative(div)
    elseif div.classes:includes('source') and div.attributes.file then
      source, nexercise = div.attributes.file, 0
      return div.content
    elseif div.classes:includes('exercise') and div.attributes.title then
      return exercise(div)
    elseif div.classes:includes('chunk') then
      return linked_code(div)
    elseif is_latex and div.classes:includes('chunkuse') then
      -- A line of a chunk that uses another one: book/preamble.tex sets it like a line of code.
      return List({ pandoc.RawBlock('latex', '\\begin{bookchunkuse}') }) .. div.content
             .. List({ pandoc.RawBlock('latex', '\\end{bookchunkuse}') })
    end
  end,
  Para = block_para,
  Plain = block_para,
  Inlines = scan,
}

-- No blank or line break at either end of a paragraph, and no paragraph that claims left empty.
local function trim(el)
  local c, n = el.content, #el.content
  local function edge(x) return is_blank(x) or x.t == 'LineBreak' end
  while #c > 0 and edge(c[#c]) do c:remove(#c) end
  while #c > 0 and edge(c[1]) do c:remove(1) end
  if #c == 0 and el.t ~= 'Header' then return {} end
  if #c ~= n then el.content = c; return el end
end

-- ---- Sets (design.md, "Sets"): several GPUs' pages side by side in one site ------------------
-- A page of the default set (-M default-set) is SLUG.html; another set's is SLUG.SET.html, and so
-- are its figures and PDF. Each page names its GPU and links to the same page of the other sets
-- (-M sets="a b"); the PDF's title page names its set.
local suffix = ''
local function resuffix(s) return (s:gsub('^([%w_%-]+)%.(html)', '%1' .. suffix .. '.%2'):gsub('^book%.pdf$', 'book' .. suffix .. '.pdf')) end
local function relink(l)
  l.target = is_latex and l.target:gsub('^%d%d%-[%w_%-]+%.html(#.+)$', '%1') or resuffix(l.target)
  return l
end
local function reimage(i) i.src = i.src:gsub('^([%w_%-]+)%.svg$', '%1' .. suffix .. '.svg'); return i end

local function set_meta(meta, str)
  local set = values_path:match('([^/]*)%.tsv$')
  local default = meta['default-set'] and str(meta['default-set']) or set
  local function sfx(s) return s == default and '' or '.' .. s end
  suffix = sfx(set)
  local gpu, page = tbl().set.gpu or 'an unknown GPU', source:match('([^/]*)%.%w+$') or 'index'
  meta.suffix, meta['book-set'], meta['book-gpu'] = suffix, set, gpu
  for _, link in ipairs(List(meta['book-chapters'] or {}) .. List({ meta.prev or nil }) .. List({ meta.next or nil })) do
    link.href = resuffix(str(link.href))
  end
  local sets = List()
  for s in (meta.sets and str(meta.sets) or ''):gmatch('%S+') do
    sets:insert({ name = s, href = page .. sfx(s) .. '.html', current = s == set or nil })
  end
  meta['book-sets'] = #sets > 1 and sets or nil
  of_set = #sets > 1 and 'set ' .. set .. ': ' or ''
  -- The book's date (the PDF's title page) is the day of the latest measurement, unless given.
  local day = meta.date and str(meta.date) or (T.set.date or ''):match('^[^T]+') or ''
  meta.date = is_latex and ('Measured on the %s (set %s), %s'):format(gpu, set, day) or day
end

local tidy = { Para = trim, Plain = trim, Header = trim, Link = relink, Image = is_html and reimage or nil }

function Pandoc(doc)
  local m, str = doc.meta, pandoc.utils.stringify
  check = m.check ~= nil and str(m.check) == 'true'
  source = m.source and str(m.source) or PANDOC_STATE.input_files[1] or '-'
  values_path = m.values and str(m.values)
  if values_path then set_meta(m, str) end
  local res = doc:walk({ Blocks = function(l) return tag(l, function() return false end) end,
                         Inlines = function(l) return tag(l, is_blank) end }):walk(walker):walk(tidy)
  res.meta = m
  if nerrors > 0 then fatal(nerrors .. (nerrors == 1 and ' error' or ' errors')) end
  return res
end
