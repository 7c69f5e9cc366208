-- parts.lua -- the book's first pandoc filter: a section `## Title {#ID .page}` is a page of its own in
-- the HTML, woven with -M part=ID (notes/design.md, "Pages"); links follow their ids (-M moved).
package.path = PANDOC_SCRIPT_FILE:gsub('[^/]*$', '') .. '?.lua;' .. package.path
local B, List, str = require('book'), pandoc.List, pandoc.utils.stringify

function Pandoc(doc)
  if not B.is_html then return nil end
  local slug = (doc.meta.source and str(doc.meta.source) or ''):match('([%w_%-]+)%.nw$')
  local part, moved, of, at, n, cur = doc.meta.part and str(doc.meta.part) or '', {}, {}, {}, {}, ''
  for id, p in pairs(doc.meta.moved or {}) do moved[id] = str(p) .. '.html' end
  local function note(x) if x.identifier ~= '' then at[x.identifier] = cur end end
  -- Each block's part ('' the chapter's page, '*' every page), each id's, and the sections' numbers.
  for i, b in ipairs(slug and doc.blocks or {}) do
    if b.t == 'Header' and b.level <= 2 then
      cur = b.level == 2 and b.classes:includes('page') and b.identifier ~= '' and b.identifier
        or (b.classes:includes('chunkindex') or b.classes:includes('identindex')) and '*' or ''
    end
    if b.t == 'Header' and PANDOC_WRITER_OPTIONS.number_sections and not b.classes:includes('unnumbered') then
      for l = 1, b.level do n[l] = (n[l] or 0) + (l == b.level and 1 or 0) end   -- the writer adds --number-offset
      b.attributes.number = table.concat(n, '.', 1, b.level)
      for l = b.level + 1, #n do n[l] = nil end
    end
    of[i] = b.t == 'Div' and (b.classes:includes('source') or b.classes:includes('source-lines')) and '*' or cur
    pandoc.walk_block(pandoc.Div({ b }), { Div = note, Span = note, Header = note, CodeBlock = note })
  end
  local function page(p) return slug .. (p == '' and '' or '-' .. p) .. '.html' end
  local function to(t)   -- the target t (#ID, or PAGE.html#ID) where its id now is
    local p = at[t:match('^#(.+)') or '']
    if p then return (p ~= '*' and p ~= part and page(p) or '') .. t end
    local pg, id = t:match('^([%w_%-]+)%.html#(.+)$'); return id and moved[pg .. '#' .. id] and moved[pg .. '#' .. id] .. '#' .. id or t
  end
  local keep = List()
  for i, b in ipairs(slug and doc.blocks or {}) do
    if of[i] == part or of[i] == '*' then keep:insert(b)
    elseif part == '' and b.t == 'Header' and b.identifier == of[i] then   -- the part's heading, and a link
      keep:extend({ b, pandoc.Para({ pandoc.Str('This section is a page of its own:'), pandoc.Space(),
                                     pandoc.Link(b.content, page(of[i])), pandoc.Str('.') }) })
    end
  end
  if slug then doc.blocks = keep end
  return doc:walk({
    Link = function(l) l.target = to(l.target); return l end,
    Div = function(d) if d.attributes.uses then d.attributes.uses = d.attributes.uses:gsub('=(%S+)', function(t) return '=' .. to(t) end) end; return d end,
  })
end
