-- exercises.lua -- the book's pandoc filter for exercises (notes/design.md, "Chapter syntax"): a div
-- .exercise with a title becomes a numbered heading (so the contents list it), its hint and solution.
package.path = PANDOC_SCRIPT_FILE:gsub('[^/]*$', '') .. '?.lua;' .. package.path
local B = require('book')
local List, is_html, text = pandoc.List, B.is_html, B.text
local source, nexercise, used_ids = '', 0, {}   -- numbered in each chapter; ids unique in the whole PDF

local function exercise(div)
  nexercise = nexercise + 1
  local n = nexercise
  local id = div.identifier ~= '' and div.identifier or 'exercise-' .. n
  if used_ids[id] then id = source:match('[^/]*$'):gsub('%.nw$', '') .. '-' .. id end
  used_ids[id] = true
  local title = pandoc.read(div.attributes.title, 'markdown').blocks[1]
  local head = text('Exercise ' .. n .. ':') .. List({ pandoc.Space() })
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
        or pandoc.Header(4, text('Solution to exercise ' .. n),
                         pandoc.Attr(id .. '-solution', { 'solution', 'unnumbered', 'unlisted' })))
      body:extend(b.content)
      if is_html then body:insert(pandoc.RawBlock('html', '</details>')) end
    else
      body:insert(b)
    end
  end
  return { pandoc.Header(3, head, pandoc.Attr(id, { 'exercise', 'unnumbered' })), pandoc.Div(body, pandoc.Attr('', { 'exercise' })) }
end

function Pandoc(doc)
  source = doc.meta.source and pandoc.utils.stringify(doc.meta.source) or ''
  return doc:walk({ traverse = 'topdown', Div = function(div)
    if div.classes:includes('source') and div.attributes.file then
      source, nexercise = div.attributes.file, 0
    elseif div.classes:includes('exercise') and div.attributes.title then
      return exercise(div)
    end
  end })
end
