-- code.lua -- the book's last pandoc filter: chunks of code (notes/design.md, "Chapter syntax"). In
-- the HTML each identifier in a chunk's code links to its definition (nw2md lists them in the chunk's
-- `uses`); in the PDF a line that uses another chunk is set like a line of code. It drops nw2md's
-- markers, and ends the run (exit 1) if any filter before it met an error.
package.path = PANDOC_SCRIPT_FILE:gsub('[^/]*$', '') .. '?.lua;' .. package.path
local B = require('book')
local List, is_html, is_latex = pandoc.List, B.is_html, B.is_latex

-- The block is highlighted by pandoc's own HTML writer, and the links go into its text between the
-- tags, where identifiers stand as they are.
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

-- A program's chunk, in the HTML: its header says how make run built and ran it on this set (the
-- record's compile and command lines, each with a copy button), and its file links to the site's copy.
local function program(div)
  local file = div.attributes.tangled
  div.attributes.tangled = nil
  if not is_html or not file then return div end
  local ok, r = pcall(B.record, file:match('^[^.]*'), { unfresh = List() })
  local p = ok and r.status ~= 'missing' and r.prov or {}
  local line = List({ pandoc.Link(pandoc.Code('tangled/' .. file), 'tangled/' .. file) })
  for _, k in ipairs({ 'compile', 'command' }) do
    if p[k] then line:extend({ pandoc.Str(k == 'compile' and ' · build:' or ' · run:'), pandoc.Space(),
                               pandoc.Code(p[k], pandoc.Attr('', { 'command' })) }) end
  end
  if p.command then line:insert(pandoc.Space()); line:extend(B.text("(as make run did, in the file's folder)")) end
  div = div:walk({ Code = function(c) if c.text == 'tangled/' .. file then return pandoc.Link(c, 'tangled/' .. file) end end })
  div.content:insert(2, pandoc.Div(pandoc.Plain(line), pandoc.Attr('', { 'program' })))
  return div
end

function Pandoc(doc)
  B.setup(doc)
  B.done()
  doc.meta.errors = nil
  return doc:walk({ Div = function(div)
    if div.classes:includes('source') or div.classes:includes('source-lines') then
      return {}
    elseif div.classes:includes('chunk') then
      return linked_code(program(div))
    elseif is_latex and div.classes:includes('chunkuse') then
      return List({ pandoc.RawBlock('latex', '\\begin{bookchunkuse}') }) .. div.content
             .. List({ pandoc.RawBlock('latex', '\\end{bookchunkuse}') })
    end
  end })
end
