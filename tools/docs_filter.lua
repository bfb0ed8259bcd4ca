--[[ Pandoc Lua filter shared by the offline build (tools/build_docs.py) and Quarto (_quarto.yml `filters`).

1. A "SPEC §n" (or a docstring's "Conventions chapter, §n" or "Conventions §n") left as plain text (numpydoc docstrings rendered by show_doc cite the specification this way,
   and a docstring cannot hold a link) becomes a link to section n of the Conventions chapter, reading
   "Conventions §n". Text already inside a link is left alone.
2. A link to a private helper (`…html#_name`: nbdev links every exported name it sees in backticks,
   but only public names get a documentation entry to land on) is dropped; its text stays.
3. Test-harness markers (`# NBVAL_CHECK_OUTPUT`, `# NBVAL_IGNORE_OUTPUT`, `# NBVAL_SKIP`, ...) are
   removed from the rendered code: nbval needs them in the notebooks, the reader does not.

The link is relative to the page: the offline build passes the page's way up to the site root as the
metadata field `site-root` ("." or ".."); under Quarto a page in tutorials/ is one level down.
]]

local root = nil

local function site_root()
  if root then return root end
  local ok, file = pcall(function() return quarto.doc.input_file end)
  if not ok or not file then file = (PANDOC_STATE.input_files or {})[1] or "" end
  root = file:match("[/\\]tutorials[/\\][^/\\]+$") and ".." or "."
  return root
end

local function conventions_link(num, chapter)
  local text = {pandoc.Str("Conventions"), pandoc.Space(), pandoc.Str("§" .. num)}
  if chapter then text = {pandoc.Str("Conventions"), pandoc.Space(), pandoc.Str("chapter,"), pandoc.Space(), pandoc.Str("§" .. num)} end
  return pandoc.Link(text, site_root() .. "/conventions.html#sec-" .. num)
end

local function link_spec(inlines)
  local out, i, changed = pandoc.List(), 1, false
  while i <= #inlines do
    local a, b, c = inlines[i], inlines[i + 1], inlines[i + 2]
    local pre = a.t == "Str" and a.text:match("^(.-)SPEC$")
    local num, post
    if pre and b and (b.t == "Space" or b.t == "SoftBreak") and c and c.t == "Str" then
      num, post = c.text:match("^§(%d+)(.*)$")
    end
    local n2, post2, pre2
    if not num then                                  -- docstrings' "Conventions chapter, §n"
      local d, e = inlines[i + 3], inlines[i + 4]
      pre2 = a.t == "Str" and a.text:match("^(.-)Conventions$")
      if pre2 and b and (b.t == "Space" or b.t == "SoftBreak") and c and c.t == "Str" and c.text == "chapter,"
         and d and (d.t == "Space" or d.t == "SoftBreak") and e and e.t == "Str" then
        n2, post2 = e.text:match("^§(%d+)(.*)$")
      end
    end
    local n3, post3
    if not num and not n2 then                       -- docstrings' "Conventions §n"
      pre2 = a.t == "Str" and a.text:match("^(.-)Conventions$")
      if pre2 and b and (b.t == "Space" or b.t == "SoftBreak") and c and c.t == "Str" then
        n3, post3 = c.text:match("^§(%d+)(.*)$")
      end
    end
    if num then
      if pre ~= "" then out:insert(pandoc.Str(pre)) end
      out:insert(conventions_link(num))
      if post ~= "" then out:insert(pandoc.Str(post)) end
      i, changed = i + 3, true
    elseif n2 then
      if pre2 ~= "" then out:insert(pandoc.Str(pre2)) end
      out:insert(conventions_link(n2, true))
      if post2 ~= "" then out:insert(pandoc.Str(post2)) end
      i, changed = i + 5, true
    elseif n3 then
      if pre2 ~= "" then out:insert(pandoc.Str(pre2)) end
      out:insert(conventions_link(n3))
      if post3 ~= "" then out:insert(pandoc.Str(post3)) end
      i, changed = i + 3, true
    else
      out:insert(a)
      i = i + 1
    end
  end
  return changed and out or nil
end

local MARKER = "^%s*#%s*NBVAL_[%u_]+%s*$"

local function strip_markers(block)
  local lines, dropped = {}, false
  for line in (block.text .. "\n"):gmatch("(.-)\n") do
    if line:match(MARKER) then dropped = true else table.insert(lines, line) end
  end
  if not dropped then return nil end
  local text = table.concat(lines, "\n"):gsub("^\n+", ""):gsub("\n+$", "")
  if text:match("^%s*$") then return {} end
  block.text = text
  return block
end

return {
  { Meta = function(meta) if meta["site-root"] then root = pandoc.utils.stringify(meta["site-root"]) end end },
  { traverse = "topdown",
    Link = function(el)
      if el.target:match("%.html#_[%w_]+$") then return el.content, false end   -- no entry to land on
      return el, false                               -- text inside a link stays as written
    end,
    Inlines = link_spec,
    CodeBlock = strip_markers },
}
