-- sets.lua -- the book's pandoc filter for its measurement sets (notes/design.md, "Sets"): the names of
-- a set's pages, figures and PDF, its GPU, links to the other sets' pages, the PDF's date (-M date).
package.path = PANDOC_SCRIPT_FILE:gsub('[^/]*$', '') .. '?.lua;' .. package.path
local B = require('book')
local List, str = pandoc.List, pandoc.utils.stringify

local suffix = ''
local function resuffix(s) return (s:gsub('^([%w_%-]+)%.(html)', '%1' .. suffix .. '.%2'):gsub('^book%.pdf$', 'book' .. suffix .. '.pdf')) end

local function set_meta(meta)
  local set = B.set
  local default = meta['default-set'] and str(meta['default-set']) or set
  local function sfx(s) return s == default and '' or '.' .. s end
  suffix = sfx(set)
  local gpu, page = B.tbl().set.gpu or 'an unknown GPU', (B.source:match('([^/]*)%.%w+$') or 'index')
    .. (meta.part and '-' .. str(meta.part) or '')
  meta.suffix, meta['book-set'], meta['book-gpu'] = suffix, set, gpu
  local links = List(meta.prev and { meta.prev } or {}) .. List(meta.next and { meta.next } or {})
  for _, c in ipairs(meta['book-chapters'] or {}) do links:extend(List({ c }) .. List(c.parts or {})) end
  for _, link in ipairs(links) do link.href = resuffix(str(link.href)) end
  local sets = List()
  for s in (meta.sets and str(meta.sets) or ''):gmatch('%S+') do
    sets:insert({ name = s, href = page .. sfx(s) .. '.html', current = s == set or nil })
  end
  meta['book-sets'] = #sets > 1 and sets or nil
  local day = meta.date and str(meta.date) or (B.tbl().set.date or ''):match('^[^T]+') or ''
  meta.date = B.is_latex and ('Measured on the %s (set %s), %s'):format(gpu, set, day) or day
end

function Pandoc(doc)
  B.setup(doc)
  if B.values_path then set_meta(doc.meta) end
  -- The book's own links and figures, to this set's names; in the PDF, where all chapters are one
  -- document, a link to another chapter's page, SLUG.html#ID, becomes #ID.
  local res = doc:walk({
    Link = function(l) l.target = B.is_latex and l.target:gsub('^%d%d%-[%w_%-]+%.html(#.+)$', '%1') or resuffix(l.target); return l end,
    Image = B.is_html and function(i) i.src = i.src:gsub('^([%w_%-]+)%.svg$', '%1' .. suffix .. '.svg'); return i end or nil,
  })
  res.meta = doc.meta
  return res
end
