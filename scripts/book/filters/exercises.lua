-- exercises.lua -- the book's pandoc filter for exercises (notes/design.md, "Chapter syntax"): a div
-- .exercise with a title becomes a numbered heading (so the contents list it), its hint and solution.
package.path = PANDOC_SCRIPT_FILE:gsub('[^/]*$', '') .. '?.lua;' .. package.path
local B = require('book')
local List, is_html, text = pandoc.List, B.is_html, B.text
local nexercise, used_ids = 0, {}   -- numbered in each chapter; ids unique in the whole PDF

local function exercise(div)
  nexercise = nexercise + 1
  local n = nexercise
  local id = div.identifier ~= '' and div.identifier or 'exercise-' .. n
  if used_ids[id] then id = B.source:match('[^/]*$'):gsub('%.nw$', '') .. '-' .. id end
  used_ids[id] = true
  local title = pandoc.read(div.attributes.title, 'markdown').blocks[1]
  local head = text('Exercise ' .. n .. ':') .. List({ pandoc.Space() }) .. (title and title.content or {})
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

-- A ':::' line that pandoc read as text opens no div: it did not stand after a blank line, or no
-- line ':::' ends its div. An error at that line.
local function fence_text(p)
  local line = List()
  for _, x in ipairs(p.content .. List({ pandoc.SoftBreak() })) do
    if x.t ~= 'SoftBreak' then line:insert(x)
    else
      local s = pandoc.utils.stringify(line)
      if s:match('^:::+%s*%S') then   -- at the line alone
        B.message({ at = B.locate(s).at }, 'error',
                  "a ':::' line read as text: a div opens after a blank line, and a line ':::' ends it")
      end
      line = List()
    end
  end
end

function Pandoc(doc)
  B.setup(doc)
  return B.finish(doc:walk({ traverse = 'topdown', Para = fence_text, Plain = fence_text, Div = function(div)
    B.follow(div)
    if div.classes:includes('source') and div.attributes.file then
      nexercise = 0
    elseif div.classes:includes('exercise') then
      local at = B.locate('.exercise').at   -- its opening line, the k-th of them (nw2md tags fences)
      if div.attributes.title then return exercise(div) end
      B.message({ at = at }, 'error', 'the exercise has no title: ::: {.exercise title="..."}')
    end
  end }))
end
