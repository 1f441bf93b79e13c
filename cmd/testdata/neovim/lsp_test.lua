-- Driven by TestNeovimLSP (cmd/lsp_neovim_test.go): Debian's Neovim
-- (0.7, and later versions alike) runs `toonkit lsp` on the broken
-- document it was opened on, records the diagnostics it receives, edits
-- the buffer (incremental sync) to fix the problem, formats, and writes
-- what it found to $TOONKIT_OUT. Neovim's own waits are failsafes: each
-- ends as soon as its condition holds.
local out = assert(io.open(os.getenv('TOONKIT_OUT'), 'w'))
local function finish(msg)
  if msg then out:write('error: ' .. msg .. '\n') end
  out:close()
  vim.cmd('qa!')
end
local ok, err = pcall(function()
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = 'toon'
  vim.bo[buf].expandtab = true
  vim.bo[buf].shiftwidth = 2
  local id = vim.lsp.start_client({
    name = 'toonkit',
    cmd = { os.getenv('TOONKIT_BIN'), 'lsp' },
    root_dir = vim.fn.getcwd(),
  })
  assert(id, 'the client did not start')
  vim.lsp.buf_attach_client(buf, id)
  local function diags() return vim.diagnostic.get(buf) end
  assert(vim.wait(60000, function() return #diags() > 0 end, 20), 'no diagnostics came')
  for _, d in ipairs(diags()) do
    out:write(string.format('diagnostic %d:%d %s %s\n', d.lnum + 1, d.col + 1, d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or '?', d.message))
  end
  -- Fix the count: [2] to [3], as a user types it (one character).
  local line = vim.api.nvim_buf_get_lines(buf, 1, 2, true)[1]
  local at = line:find('%[2%]')
  vim.api.nvim_buf_set_text(buf, 1, at, 1, at + 1, { '3' })
  assert(vim.wait(60000, function() return #diags() == 0 end, 20), 'the diagnostics did not clear')
  out:write('fixed: no diagnostics\n')
  if vim.lsp.buf.format then
    vim.lsp.buf.format({ timeout_ms = 60000 })
  else
    vim.lsp.buf.formatting_sync(nil, 60000)
  end
  for _, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, true)) do
    out:write('buffer: ' .. l .. '\n')
  end
end)
finish(not ok and tostring(err) or nil)
