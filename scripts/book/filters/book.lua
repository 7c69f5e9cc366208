-- book.lua -- what the book's pandoc filters share (notes/design.md, "Directives"): messages at
-- FILE:LINE, the values table, and the nodes they build (expr.lua has the expressions).
-- Each filter loads it with require; every message is counted, and a filter exits 1 after an error.
local M = {}
local List = pandoc.List
M.is_html, M.is_latex = FORMAT:match('html') ~= nil, FORMAT:match('latex') ~= nil
M.check, M.nerrors, M.quiet = false, 0, 0 -- check mode makes warnings errors; quiet: a branch not taken
M.of_set = ''                             -- 'set NAME: ' where several sets are woven
M.source = '-'                            -- the chapter now walked (its .source marker, or -M source)

-- ---- Where a directive is: the chapter's lines that nw2md tagged, or the input itself ----------
-- Smart punctuation back to what the author typed, so that the text and the chapter compare equal.
local ASCII = { ['\u{2018}'] = "'", ['\u{2019}'] = "'", ['\u{201C}'] = '"', ['\u{201D}'] = '"',
                ['\u{2014}'] = '---', ['\u{2013}'] = '--', ['\u{2026}'] = '...', ['\u{A0}'] = ' ' }
local function squeeze(s) return (s:gsub('%s+', ' '):gsub('^ ', ''):gsub(' $', '')) end   -- its words, a blank apart
function M.canon(s) return squeeze(s:gsub('\\(%p)', '%1'):gsub(utf8.charpattern, ASCII)) end

local lines_of, seen = {}, {}   -- file -> { {line, canonical text} }; directive -> how many so far
local unread                    -- the document, until a message first needs its chapters' lines
-- FILE:LINE of the k-th directive with this text (for one that does not close, at the end of a line);
-- a file that nw2md did not write is read itself.
function M.locate(text, unclosed)
  local key, src = M.canon(text), M.source
  -- The lines that nw2md wrote beside each chapter (a .source-lines div: "LINE TEXT"), read once.
  if unread then unread:walk({ Div = function(d)
    if not d.classes:includes('source-lines') or lines_of[d.attributes.file] then return end
    local t = {}
    for l in (d.content[1] and d.content[1].text or ''):gmatch('[^\n]+') do
      local n, text = l:match('^(%d+) (.*)$')
      if n then t[#t + 1] = { tonumber(n), M.canon(text) } end
    end
    lines_of[d.attributes.file] = t
  end }) end
  unread = nil
  local id = src .. '\0' .. (unclosed and '\0' or '') .. key
  seen[id] = (seen[id] or 0) + 1
  if not lines_of[src] then   -- unreadable: its messages say FILE alone
    local ok, it, n = pcall(io.lines, src)
    lines_of[src], n = {}, 0
    for l in ok and it or function() end do n = n + 1; lines_of[src][n] = { n, M.canon(l) } end
  end
  local k, pat, at = seen[id], key:gsub('%p', '%%%0') .. (unclosed and '$' or ''), src
  for _, l in ipairs(lines_of[src]) do
    k = k - select(2, l[2]:gsub(pat, ''))
    if k <= 0 then at = src .. ':' .. l[1]; break end
  end
  return { at = at, key = not unclosed and key, unfresh = List() }
end

function M.message(loc, severity, msg)
  if severity == 'warning' and M.quiet > 0 then return end
  if severity == 'warning' and M.check then severity = 'error' end
  if severity == 'error' then M.nerrors = M.nerrors + 1 end
  io.stderr:write(loc.at .. ': ' .. severity .. ': ' .. M.of_set .. (loc.key and loc.key .. ': ' or '') .. msg .. '\n')
end
-- An error in one directive, raised, and reported at the directive by whoever catches it.
function M.fail(msg) error({ msg = msg }, 0) end
-- The end of the run (pandoc would turn a raised error into text).
function M.fatal(msg) io.stderr:write('book: ' .. msg .. '\n'); os.exit(1) end
function M.done() if M.nerrors > 0 then M.fatal(M.nerrors .. (M.nerrors == 1 and ' error' or ' errors')) end end
-- Runs f(), which may fail(); its error is reported at loc and f's result is nil.
function M.try(loc, f)
  local ok, res = pcall(f)
  if not ok and type(res) ~= 'table' then error(res, 0) end
  if not ok then return M.message(loc, 'error', res.msg) end
  return res
end
-- What every filter reads: check mode, the chapter, the values table, the sets woven, the errors so far.
function M.setup(doc)
  local m, str = doc.meta, pandoc.utils.stringify
  M.check = m.check ~= nil and str(m.check) == 'true'
  M.nerrors = tonumber(m.errors and str(m.errors) or '0')
  M.source = m.source and str(m.source) or PANDOC_STATE.input_files[1] or '-'
  M.values_path = m.values and str(m.values)
  M.set = M.values_path and M.values_path:match('([^/]*)%.tsv$')
  M.of_set = select(2, (m.sets and str(m.sets) or ''):gsub('%S+', '')) > 1 and 'set ' .. M.set .. ': ' or ''
  unread = doc
end
-- The document, its metadata counting the errors so far for the next filter (code.lua ends the run).
function M.finish(doc)
  doc.meta.errors = pandoc.MetaString(tostring(M.nerrors))
  return doc
end
-- A .source marker (nw2md) names the chapter that follows it.
function M.follow(div) if div.classes:includes('source') and div.attributes.file then M.source = div.attributes.file end end

-- ---- The values table (design.md), read when a directive first needs it ----------------------
local T
local ESCAPES = { ['\\'] = '\\', t = '\t', n = '\n' }
local BIDI = {}   -- the bidirectional controls U+202A..202E, U+2066..2069, which reorder text: U+FFFD
for c = 0x202A, 0x2069 do BIDI[utf8.char(c)] = (c <= 0x202E or c >= 0x2066) and '\u{FFFD}' or nil end
local function fields(l, row)   -- a row's fields, unescaped
  row = {}; for x in (l:gsub('\xE2[\x80\x81].', BIDI) .. '\t'):gmatch('([^\t]*)\t') do row[#row + 1] = x:gsub('\\(.)', ESCAPES) end; return row
end
function M.tbl()   -- the set's rows and its records; a record's other rows wait in raw until M.record reads it
  if T then return T end
  if not M.values_path then M.fatal('error: no values table: pandoc needs -M values=build/values/SET.tsv') end
  local f, why = io.open(M.values_path)
  if not f then M.fatal('error: cannot read the values table: ' .. why) end
  T = { set = {}, rec = {}, names = {} }
  for l in f:lines() do
    local kind, name = l:match('^(%a+)\t([^\t]*)'); local row = (kind == 'set' or kind == 'record') and fields(l)
    if kind == 'set' then T.set[row[2]] = row[3]
    elseif kind == 'record' then
      T.rec[row[2]] = { name = row[2], status = row[3], why = row[4], runs = row[5], kind = row[6], wall = row[7],
                        prov = {}, values = {}, lines = {}, by = {}, raw = {} }
      table.insert(T.names, row[2])
    else table.insert(T.rec[name].raw, l) end
  end
  f:close(); return T
end
function M.remeasure(r) return 'make run ONLY=' .. r.name .. ' measures it' end

-- Record NAME; the directive keeps those it reads that are not fresh, to mark and warn of them.
function M.record(name, loc)
  local r = M.tbl().rec[name] or M.fail('no program or session ' .. name .. ' in the values table (it has '
                                        .. table.concat(T.names, ', ') .. ')')
  -- Its provenance, lines and values, read when a directive first reads it (a page reads few).
  for _, l in ipairs(r.raw or {}) do
    local row = fields(l)
    if row[1] == 'prov' then r.prov[row[3]] = row[4]
    elseif row[1] == 'line' then table.insert(r.lines, { kind = row[3], text = row[4] })
    elseif row[1] == 'value' then
      local v = { name = row[2], pos = row[3], label = row[4], occ = tonumber(row[5]), nocc = tonumber(row[6]),
                  med = row[7], min = row[8], max = row[9], unit = row[11], spread = row[12], line = row[13], key = row[14] }
      table.insert(r.values, v); r.by[v.pos], r.by[M.canon(v.key)] = v, v
    end
  end
  r.raw = nil
  if r.status ~= 'fresh' and not loc.unfresh:includes(r) then loc.unfresh:insert(r) end
  return r
end

-- The warnings of what a directive or condition read that is not fresh.
function M.report(loc)
  for _, r in ipairs(loc.unfresh) do
    M.message(loc, 'warning', r.status == 'missing' and (r.lacks and r.lacks .. ', so it is shown as not measured'
                                                       or r.name .. ' is not measured; ' .. M.remeasure(r))
                              or r.name .. ' is stale (' .. r.why .. '); ' .. M.remeasure(r) .. ' again')
  end
end

-- ---- Document nodes ---------------------------------------------------------------------------
-- Plain text as inlines: words and blanks (a non-breaking space stays inside its word).
function M.text(s) return pandoc.Inlines(squeeze(s)) end
function M.span(ils, class, attrs) return pandoc.Span(ils, pandoc.Attr('', { class }, attrs)) end
-- The mark of what is not fresh (or, given cmd, contradicted): \bookstale of book/preamble.tex in the PDF.
function M.mark(ils, cmd)
  if not M.is_latex then return ils end
  return List({ pandoc.RawInline('latex', '\\' .. (cmd or 'bookstale') .. '{') }) .. ils .. List({ pandoc.RawInline('latex', '}') })
end
function M.not_measured(r)
  return M.mark(M.text('not measured on this GPU: ' .. r.name .. (r.lacks and '' or ' (make run measures it)')))
end
function M.is_blank(el) return el.t == 'Space' or el.t == 'SoftBreak' end

return M
