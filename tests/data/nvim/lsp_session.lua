-- A scripted Neovim session against `rdx lsp`, driven by tests/test_lsp_neovim.py.
--
-- The test writes a JSON plan and names it in $RDX_NVIM_PLAN: the server command, the workspace
-- root, the file to open, where to write the answers, and a list of steps. Each step is a request
-- (`method`, an optional 0-based `position` and extra `params`), an edit of the buffer (`set_lines`,
-- which the client turns into an incremental didChange), a wait for diagnostics, or the resolve of
-- a completion item an earlier step returned. The script knows no expected answer: it records what
-- the server said, step by step, and the test judges it. It uses only what Neovim 0.7 offers
-- (`vim.lsp.start_client` and `buf_attach_client`; `vim.lsp.start` appeared in 0.8).

local plan = vim.fn.json_decode(table.concat(vim.fn.readfile(os.getenv('RDX_NVIM_PLAN')), '\n'))
local report = { steps = {}, progress = {}, log_path = vim.lsp.get_log_path() }

local function write_report()
  vim.fn.writefile({ vim.fn.json_encode(report) }, plan.out)
end

local function main()
  -- A debug log shows every message both ways and the server's stderr; the test prints it on failure.
  vim.lsp.set_log_level('debug')
  local initialized = false
  local client_id = vim.lsp.start_client({
    name = 'rdx',
    cmd = plan.cmd,
    root_dir = plan.root,
    get_language_id = function() return 'ruby' end,
    on_init = function() initialized = true end,
    handlers = {
      -- Every progress notification is kept, then handed to Neovim's own handler.
      ['$/progress'] = function(err, result, ctx, config)
        table.insert(report.progress, result)
        return vim.lsp.handlers['$/progress'](err, result, ctx, config)
      end,
    },
  })
  if not client_id then
    error('vim.lsp.start_client refused the configuration')
  end

  vim.cmd('edit ' .. vim.fn.fnameescape(plan.file))
  local buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buf, client_id)
  local ms = plan.timeout_ms
  if not vim.wait(ms, function() return initialized end, 20) then
    error('the server did not answer initialize within ' .. ms .. ' ms')
  end
  report.initialized = true
  -- The server indexes in the background and reports it under one progress token; requests
  -- would wait for it anyway, but the end of that progress is what an editor shows as "ready".
  local client = vim.lsp.get_client_by_id(client_id)
  local ready = vim.wait(ms, function()
    for _, progress in pairs(client.messages.progress) do
      if progress.done then return true end
    end
    return false
  end, 20)
  report.ready = ready
  report.attached = vim.lsp.buf_is_attached(buf, client_id)
  if not ready then
    error('the indexing progress did not end within ' .. ms .. ' ms: ' .. vim.inspect(client.messages.progress))
  end

  local uri = vim.uri_from_bufnr(buf)
  for _, step in ipairs(plan.steps) do
    local record = { name = step.name }
    if step.set_lines then
      local edit = step.set_lines
      vim.api.nvim_buf_set_lines(buf, edit[1], edit[2], true, edit[3])
      record.changedtick = vim.api.nvim_buf_get_changedtick(buf)
    elseif step.wait_diagnostics then
      -- Diagnostics arrive as notifications: wait for one of the wanted severity (or time out).
      local wanted = step.wait_diagnostics.severity
      local function matching()
        return vim.diagnostic.get(buf, { severity = wanted })
      end
      record.found = vim.wait(ms, function() return #matching() > 0 end, 20)
      record.diagnostics = {}
      for _, d in ipairs(vim.diagnostic.get(buf)) do
        table.insert(record.diagnostics, { lnum = d.lnum, col = d.col, severity = d.severity, message = d.message, source = d.source })
      end
    else
      local params = vim.deepcopy(step.params or {})
      if step.method ~= 'completionItem/resolve' then
        params.textDocument = { uri = uri }
      end
      if step.position then
        params.position = { line = step.position[1], character = step.position[2] }
      end
      if step.resolve then
        -- The item to resolve is the one labelled so in an earlier step's completion list.
        local earlier
        for _, r in ipairs(report.steps) do
          if r.name == step.resolve.step then earlier = r end
        end
        local list = earlier and type(earlier.result) == 'table' and earlier.result or {}
        for _, item in ipairs(list.items or list) do
          if item.label == step.resolve.label then params = item end
        end
      end
      local answers, failure = vim.lsp.buf_request_sync(buf, step.method, params, ms)
      if not answers then
        record.failure = failure or 'no answer'
      else
        local answer = answers[client_id] or {}
        record.result = answer.result
        record.error = answer.err
      end
    end
    table.insert(report.steps, record)
    -- Written after every step, so that a session killed on timeout still shows how far it got.
    write_report()
  end
  report.lines = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
  vim.lsp.stop_client(client_id)
  vim.wait(2000, function() return vim.lsp.client_is_stopped(client_id) end, 20)
end

local ok, failure = xpcall(main, debug.traceback)
if not ok then
  report.error = failure
end
write_report()
vim.cmd(ok and 'qall!' or 'cquit! 1')
