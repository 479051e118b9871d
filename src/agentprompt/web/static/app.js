// The agentprompt page: every action is a JSON-RPC call to /rpc (see the README).
// Text from the repository or a reply is only ever set as textContent, never as HTML.
"use strict";

const TOKEN = document.querySelector('meta[name="agentprompt-token"]').content;
const state = { files: new Set(), mode: "browse", parts: [], text: "", previewed: false };
let rpcId = 0;

function $(id) { return document.getElementById(id); }

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const child of children) {
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function rpc(method, params) {
  const answer = await fetch("/rpc?token=" + encodeURIComponent(TOKEN), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params: params || {} }),
  });
  if (!answer.ok) throw new Error(method + ": the server answered " + answer.status);
  const data = await answer.json();
  if (data.error) throw new Error(data.error.message);
  return data.result;
}

function showError(error) { $("error").textContent = error ? String(error.message || error) : ""; }

async function guarded(action) {
  showError("");
  try { await action(); } catch (error) { showError(error); }
}

// --- the task input and the snippet drawer --------------------------------------------

function autoResize(textarea) {
  // border-box sizing: the height must hold the borders as well as the scrolled content.
  textarea.style.height = "auto";
  const borders = textarea.offsetHeight - textarea.clientHeight;
  textarea.style.height = textarea.scrollHeight + borders + "px";
}

function appendSnippet(message) {
  const task = $("task");
  const start = task.selectionStart ?? task.value.length;
  const end = task.selectionEnd ?? start;
  task.value = task.value.slice(0, start) + message + task.value.slice(end);
  const cursor = start + message.length;
  task.focus();
  task.setSelectionRange(cursor, cursor);
  autoResize(task);
}

function setDrawer(open) {
  $("snippet-drawer").hidden = !open;
  $("snippet-toggle").setAttribute("aria-expanded", String(open));
}

async function loadPromptSnippets() {
  const found = await rpc("get_prompt_snippets");
  const drawer = $("snippet-drawer");
  drawer.replaceChildren();
  for (const snippet of found.snippets) {
    const button = el("button", { type: "button", className: "snippet", title: snippet.tooltip },
      snippet.icon);
    button.setAttribute("aria-label", snippet.tooltip);
    button.addEventListener("click", () => appendSnippet(snippet.message));
    drawer.append(button);
  }
}

function wireDrawer() {
  $("snippet-toggle").addEventListener("click", () => setDrawer($("snippet-drawer").hidden));
  document.addEventListener("click", (event) => {
    if ($("snippet-drawer").hidden) return;
    if ($("snippet-drawer").contains(event.target) || $("snippet-toggle").contains(event.target)) return;
    setDrawer(false);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !$("snippet-drawer").hidden) {
      setDrawer(false);
      $("snippet-toggle").focus();
    }
  });
  $("task").addEventListener("input", () => autoResize($("task")));
}

// --- mode and file tree -----------------------------------------------------------------

function setMode(mode) {
  state.mode = mode;
  for (const radio of document.querySelectorAll('input[name="mode"]')) radio.checked = radio.value === mode;
}

function fileItem(node) {
  const inContext = state.files.has(node.path);
  const button = el("button", { type: "button", className: "toggle-file" }, inContext ? "Remove" : "Add");
  button.setAttribute("aria-label", (inContext ? "Remove " : "Add ") + node.path);
  button.setAttribute("aria-pressed", String(inContext));
  button.addEventListener("click", () => guarded(async () => {
    if (tree && tree.session) {
      // A session in progress: the change is the session's (bridge add / drop), and the
      // next prompt follows it.
      const method = state.files.has(node.path) ? "bridge_drop" : "bridge_add";
      renderPrompt(await rpc(method, { files: [node.path] }));
      await loadTree();
      return;
    }
    if (state.files.has(node.path)) state.files.delete(node.path); else state.files.add(node.path);
    if (state.files.size) setMode("edit");
    renderTree();
  }));
  const item = el("li", { className: inContext ? "file in-context" : "file" },
    el("span", { className: "name" }, node.name), " ",
    el("span", { className: "tokens" }, (node.tokens ?? "?") + " tokens"), " ", button);
  item.dataset.path = node.path;
  return item;
}

function rankedItem(file) {
  // A ranked file: its path, score and reasons, with the same Add/Remove as the tree's.
  const node = { path: file.path, name: file.path, tokens: tokensOf(file.path) };
  const item = fileItem(node);
  item.classList.add("ranked");
  const why = file.reasons.map((r) => r.signal === "graph" ? "graph" :
    r.signal === "test" ? "test file" : r.signal + ": " + r.detail).join("; ");
  item.insertBefore(el("span", { className: "score" }, file.score.toFixed(3) + " "), item.firstChild);
  item.append(" ", el("span", { className: "why" }, why));
  return item;
}

function tokensOf(path) {
  const found = tree && tree.files.find((f) => f.path === path);
  return found ? found.tokens : null;
}

let ranked = null;

function renderRanked() {
  if (!ranked) return;
  $("ranked").replaceChildren(...ranked.files.map(rankedItem));
}

async function rankFiles() {
  ranked = await rpc("rank_files", { task: $("task").value, top: 15 });
  renderRanked();
  $("rank-status").textContent = ranked.files.length + " of " + ranked.total +
    " files, most relevant to the task first.";
}

function rankedSymbolItem(symbol) {
  // A ranked function or class: its score, place (path:start-end), name and reasons.
  const why = symbol.reasons.map((r) => r.signal + ": " + r.detail).join("; ");
  return el("li", { className: "ranked-symbol" },
    el("span", { className: "score" }, symbol.score.toFixed(3) + " "),
    el("code", {}, symbol.path + ":" + symbol.start + "-" + symbol.end), " ",
    el("span", { className: "name" }, symbol.name), " ",
    el("span", { className: "why" }, why));
}

async function rankSymbols() {
  const found = await rpc("rank_symbols", { task: $("task").value, top: 15 });
  $("ranked-symbols").replaceChildren(...found.symbols.map(rankedSymbolItem));
  $("rank-status").textContent = found.symbols.length + " functions and classes of the " +
    found.files + " best files, most relevant to the task first.";
}

function treeItems(node) {
  const items = [];
  for (const child of node.children || []) {
    if (child.type === "dir") {
      const list = el("ul", {}, ...treeItems(child));
      items.push(el("li", { className: "dir" },
        el("span", { className: "name" }, child.name + "/"), " ",
        el("span", { className: "tokens" }, (child.tokens ?? "?") + " tokens"), list));
    } else {
      items.push(fileItem(child));
    }
  }
  return items;
}

let tree = null;

function renderTree() {
  renderRanked();
  if (!tree) return;
  $("tree").replaceChildren(...treeItems(tree.tree));
  $("tree-total").textContent = "(" + tree.tokens + " tokens, " + tree.tokenizer + ")";
}

async function loadTree() {
  tree = await rpc("get_tree");
  $("root-name").textContent = tree.root;
  if (tree.context.length) state.files = new Set(tree.context);
  if (tree.mode) setMode(tree.mode);
  if (tree.session) {
    // The session's own patterns and budget, where the fields are still empty.
    if (!$("include").value) $("include").value = tree.session.include.join("\n");
    if (!$("exclude").value) $("exclude").value = tree.session.exclude.join("\n");
    // The session's budget as a hint: a value in the field would win over a chat chosen later.
    $("max-tokens").placeholder = tree.session.max_tokens ?
      "this session: " + tree.session.max_tokens : "this session: no budget";
  }
  // Undo is offered once a reply has been applied in the session in progress.
  $("undo").disabled = !(tree.session && tree.session.rounds > 0);
  renderBudgets(tree.budgets);
  renderTree();
}

// --- prompt parts -----------------------------------------------------------------------

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
  } else {
    const area = el("textarea", { value: text });
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
  document.body.dataset.copied = text;
}

function renderPrompt(prompt) {
  state.parts = prompt.parts;
  state.text = prompt.text;
  $("download").disabled = false;
  const total = prompt.parts.length;
  const items = prompt.parts.map((part) => {
    const copy = el("button", { type: "button", className: "copy" }, "Copy");
    copy.setAttribute("aria-label", "Copy part " + part.index + " of " + total);
    copy.addEventListener("click", () => guarded(async () => {
      await copyText(part.text);
      $("prompt-status").textContent = "Copied part " + part.index + " of " + total + ".";
    }));
    return el("li", { className: "part" },
      el("div", { className: "part-head" },
        el("strong", {}, "Part " + part.index + " of " + total), " ",
        el("span", { className: "tokens" }, part.tokens + " tokens"), " ", copy),
      el("pre", { className: "part-text", tabIndex: 0 }, part.text));
  });
  $("parts").replaceChildren(...items);
  const kind = prompt.followup ? "follow-up (only what is new)" : prompt.continuation ? "continuation" : "whole prompt";
  $("prompt-status").textContent = prompt.mode + " mode, " + kind + ", " + prompt.tokens + " tokens (" +
    prompt.tokenizer + "), " + total + " part(s)" + (prompt.continuation ? ", asks to continue" : "") +
    (prompt.left_out.length ? "; cut to fit: " + prompt.left_out.map((f) => f.path + " (" + f.kept + ")").join(", ") : "") +
    (prompt.withheld.length ? "; withheld as likely secrets: " + prompt.withheld.map((f) => f.path).join(", ") : "");
  renderSections(prompt.sections);
  state.files = new Set(prompt.state.files);
  setMode(prompt.state.mode);
  renderTree();
}

function renderSections(sections) {
  // What the prompt spends, section by section (cut at its headings).
  const rows = sections.map((s) => el("tr", {},
    el("td", {}, s.title || "(before the first heading)"), el("td", {}, s.tokens), el("td", {}, s.chars)));
  document.querySelector("#sections-table tbody").replaceChildren(...rows);
  $("sections-table").hidden = sections.length === 0;
}

function patterns(id) {
  // Gitignore patterns, one a line (blank lines left out).
  return $(id).value.split("\n").map((line) => line.trim()).filter((line) => line);
}

function renderBudgets(budgets) {
  // The chat presets (once) and the default a new session gets, in the budget's select.
  const select = $("chat");
  const fallback = budgets.default === null ? "no budget" : budgets.default + " tokens";
  select.options[0].textContent = "the default (" + fallback + ")" +
    (budgets.default_error ? ": " + budgets.default_error : "");
  if (select.options.length > 2) return;
  const presets = budgets.chats.map((chat) =>
    el("option", { value: chat.name }, chat.name + " (" + chat.tokens + " tokens)"));
  select.options[0].after(...presets);
}

function maxTokens() {
  const value = $("max-tokens").value.trim();
  return value ? Number(value) : null;
}

function budgetParams(params) {
  // The budget field wins over the chat; neither: a new session takes the default, a
  // session in progress keeps its own.
  const chat = $("chat").value;
  if (maxTokens() !== null) params.max_tokens = maxTokens();
  else if (chat === "none") params.max_tokens = "none";
  else if (chat) params.chat = chat;
  return params;
}

function downloadPrompt() {
  // The whole prompt, unsplit, as a file to attach to the chat (as pack --output FILE).
  const blob = new Blob([state.text], { type: "text/markdown;charset=utf-8" });
  const link = el("a", { href: URL.createObjectURL(blob), download: "prompt.md" });
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(link.href);
  $("prompt-status").textContent = "Saved the whole prompt as prompt.md: attach it to the chat.";
}

async function buildPrompt() {
  const task = $("task").value;
  const params = { task, mode: state.mode, files: [...state.files] };
  const include = patterns("include");
  const exclude = patterns("exclude");
  if (include.length) params.include = include;
  if (exclude.length) params.exclude = exclude;
  budgetParams(params);
  if (tree && tree.session && tree.session.rounds > 0) {
    // As pack --task --new: a session with replies applied is replaced only when asked.
    if (!window.confirm("A session is in progress (round " + tree.session.rounds +
      "). Replace it with this task?")) return;
    params.new = true;
  }
  const prompt = await rpc("build_prompt", params);
  await loadTree();
  renderPrompt(prompt);
  await loadBreakdown();
}

async function resendAll() {
  // Everything again (system part, task, structure, files in context), for a new chat.
  const params = budgetParams({ full: true });
  renderPrompt(await rpc("build_prompt", params));
  await loadBreakdown();
}

// --- reply: preview and apply -----------------------------------------------------------

function diffView(diff) {
  const pre = el("pre", { className: "diff" });
  for (const line of diff.split("\n")) {
    let kind = "";
    if (line.startsWith("+++") || line.startsWith("---")) kind = "head";
    else if (line.startsWith("+")) kind = "add";
    else if (line.startsWith("-")) kind = "del";
    else if (line.startsWith("@@")) kind = "hunk";
    pre.append(el("span", { className: kind }, line + "\n"));
  }
  return pre;
}

function reportView(report, title) {
  const box = el("div", { className: "report" }, el("h3", {}, title));
  const actions = el("ul", { className: "actions" });
  const failed = new Map(report.failed.map((f) => [f.index, f]));
  for (const m of report.matched) {
    if (!failed.has(m.index)) actions.append(el("li", { className: "ok" },
      m.action + " " + m.path + (report.dry_run ? ": would apply" : report.written ? ": applied" : ": matched, not written")));
  }
  for (const f of report.failed) actions.append(el("li", { className: "failed" }, f.action + " " + f.path + ": " + f.reason));
  if (report.requests.length) actions.append(el("li", {}, "Requests files: " + report.requests.join(", ")));
  if (report.switch_mode) actions.append(el("li", {}, "Switch to " + report.switch_mode.mode + " mode" +
    (report.switch_mode.paths && report.switch_mode.paths.length ? ": " + report.switch_mode.paths.join(", ") : "")));
  if (report.continue) actions.append(el("li", {}, "The reply will continue in a further reply."));
  for (const d of report.diagnostics) actions.append(el("li", { className: d.severity }, "line " + d.line + ": " + d.message));
  if (report.error) actions.append(el("li", { className: "failed" }, report.error));
  box.append(actions);
  if (report.diff) box.append(diffView(report.diff));
  if (report.feedback) box.append(el("h4", {}, "Feedback for the model"), el("pre", {}, report.feedback));
  return box;
}

function nextPromptPreview(bridge) {
  // The prompt applying would make next, files shown as the reply's edits would leave them.
  const box = el("details", { className: "next-prompt" });
  if (bridge.error) return el("p", { className: "failed" }, bridge.error);
  const tokens = bridge.prompt.parts.reduce((sum, part) => sum + part.tokens, 0);
  box.append(el("summary", {}, "Next prompt after Apply (" + tokens + " tokens, " + bridge.prompt.mode + " mode)"));
  if (bridge.added.length) box.append(el("p", {}, "Would be added to the context: " + bridge.added.join(", ")));
  for (const m of bridge.missing) box.append(el("p", { className: "warning" }, "Cannot show " + m.path + ": " + m.reason));
  box.append(el("pre", { className: "next-prompt-text" }, bridge.prompt.text));
  return box;
}

function answerView(answer, saved) {
  // A reply with nothing to apply: the model's answer (done, or a question for the user).
  return el("div", { className: "answer-box" },
    el("h4", {}, "The model's answer (nothing to apply)"),
    el("pre", { className: "answer" }, answer),
    el("p", {}, saved
      ? "Recorded in the session. Answer it with a note, or run a command, below: the next prompt holds them."
      : "Apply records it in the session; the next prompt then holds what you add below."));
}

async function previewReply() {
  const report = await rpc("preview_reply", { reply: $("reply-text").value });
  if (report.answer !== undefined) {
    $("reply-result").replaceChildren(answerView(report.answer, false));
    $("apply").disabled = false;
    return;
  }
  const view = reportView(report, report.ok ? "Preview: nothing written yet" : "Preview: some edits would fail");
  if (report.bridge) view.append(nextPromptPreview(report.bridge));
  $("reply-result").replaceChildren(view);
  $("apply").disabled = false;
}

async function applyReply() {
  const result = await rpc("apply_reply", { reply: $("reply-text").value });
  if (result.answer !== undefined) {
    $("reply-result").replaceChildren(answerView(result.answer, true));
    if (result.bridge && result.bridge.prompt) renderPrompt(result.bridge.prompt);
    $("apply").disabled = true;
    await loadTree();
    await loadBreakdown();
    return;
  }
  const title = result.written ? "Applied" : "Not applied" + (result.ok ? "" : ": nothing was written");
  const view = reportView(result, title);
  const bridge = result.bridge;
  if (bridge && bridge.error) view.append(el("p", { className: "failed" }, bridge.error));
  if (bridge && bridge.prompt) {
    if (bridge.added.length) view.append(el("p", {}, "Added to the context: " + bridge.added.join(", ")));
    for (const m of bridge.missing) view.append(el("p", { className: "warning" }, "Cannot show " + m.path + ": " + m.reason));
    view.append(el("p", {}, "The next prompt is ready above."));
    renderPrompt(bridge.prompt);
  }
  $("reply-result").replaceChildren(view);
  $("apply").disabled = true;
  await loadTree();
  await loadBreakdown();
}

// --- the user's input for the next prompt: a note, a command's output ---------------------

function commandWords(line) {
  // The command's words, split as a shell splits them on blanks and '...' or "..." quotes
  // (no variables or globs: the command runs without a shell).
  const words = [];
  let word = null;
  let quote = "";
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = "";
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word = word === null ? "" : word;
    } else if (/\s/.test(ch)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word === null ? "" : word) + ch;
    }
  }
  if (quote) throw new Error("The command has an unclosed " + quote + " quote.");
  if (word !== null) words.push(word);
  return words;
}

async function showNextPrompt(said) {
  // The prompt with what was just added (as after adding or removing a file).
  renderPrompt(await rpc("build_prompt", {}));
  $("input-status").textContent = said + " The prompt above holds it.";
  await loadBreakdown();
}

async function addNote() {
  await rpc("bridge_note", { note: $("note-text").value });
  $("note-text").value = "";
  await showNextPrompt("Note added.");
}

async function runCommand() {
  const command = commandWords($("run-command").value);
  const params = { command };
  const timeout = Number($("run-timeout").value);
  if ($("run-timeout").value.trim() !== "") params.timeout = timeout;
  $("input-status").textContent = "Running " + command.join(" ") + " ...";
  const result = await rpc("bridge_run", params);
  const run = result.run;
  const ended = run.timed_out ? "stopped at the time limit (" + run.timeout + " s)" : "exit status " + run.status;
  await showNextPrompt("Ran " + run.command + ": " + ended + ".");
}

async function undoRound() {
  // As bridge undo: the last applied round's files and the session go back as they were.
  if (!window.confirm("Undo round " + tree.session.rounds + "? The files it changed go back to " +
    "what they were before it, and so does the session.")) return;
  const result = await rpc("bridge_undo", {});
  const box = el("div", { className: "report" }, el("h3", {}, "Undid round " + result.undone));
  const actions = el("ul", { className: "actions" });
  for (const path of result.restored) actions.append(el("li", { className: "ok" }, "restored " + path));
  for (const path of result.recreated) actions.append(el("li", { className: "ok" }, "restored " + path + " (the round deleted it)"));
  for (const path of result.removed) actions.append(el("li", { className: "ok" }, "removed " + path + " (the round created it)"));
  if (result.commit) actions.append(el("li", { className: "warning" },
    "The round's commit " + result.commit.slice(0, 12) + " stays in git's history."));
  box.append(actions);
  if (result.diff) box.append(diffView(result.diff));
  box.append(el("p", {}, "The session is back at round " + result.rounds + "; its prompt is ready above."));
  $("reply-result").replaceChildren(box);
  renderPrompt(result.prompt);
  $("apply").disabled = true;
  await loadTree();
  await loadBreakdown();
}

// --- context breakdown ------------------------------------------------------------------

async function loadBreakdown() {
  const data = await rpc("get_context_breakdown", { files: [...state.files], task: $("task").value });
  const status = {};
  for (const block of data.cache.blocks) status[block.tier] = block.status;
  const rows = [];
  for (const tier of data.tiers) {
    const head = el("tr", { className: "tier" },
      el("th", { scope: "row" }, tier.tier + (tier.cached ? " (cached)" : "")),
      el("td", {}, tier.items.length + " item(s)"), el("td", {}, ""), el("td", {}, tier.tokens),
      el("td", { className: status[tier.tier] || "" }, status[tier.tier] || (tier.tier === "active" ? "not cached" : "—")));
    rows.push(head);
    for (const item of tier.items) {
      rows.push(el("tr", {}, el("td", {}, ""), el("td", {}, item.key), el("td", {}, item.kind), el("td", {}, item.tokens), el("td", {}, "")));
    }
  }
  document.querySelector("#breakdown-table tbody").replaceChildren(...rows);
  const running = data.cache.running;
  $("breakdown-total").textContent = "Total: " + data.total_tokens + " tokens (" + data.tokenizer + "); " +
    data.rule + " rule: " + data.cache.served + " would be read from the cache, " + data.cache.written + " written" +
    (data.carried ? "; carried as changes in active: " + data.carried + " tokens" : "");
  $("breakdown-served").textContent = running.requests > 1
    ? "Served from the cache over the recorded requests, this one included: " + (100 * running.share).toFixed(1) + "% of " + running.total + " input tokens"
    : "No earlier request recorded: every block is written once.";
  $("breakdown-warnings").replaceChildren(...data.warnings.map((w) => el("p", { className: "warning" }, w)));
}

// --- start ------------------------------------------------------------------------------

function start() {
  wireDrawer();
  for (const radio of document.querySelectorAll('input[name="mode"]')) {
    radio.addEventListener("change", () => setMode(radio.value));
  }
  $("build").addEventListener("click", () => guarded(buildPrompt));
  $("full").addEventListener("click", () => guarded(resendAll));
  $("download").addEventListener("click", () => guarded(async () => downloadPrompt()));
  $("rank-files").addEventListener("click", () => guarded(rankFiles));
  $("rank-symbols").addEventListener("click", () => guarded(rankSymbols));
  $("preview").addEventListener("click", () => guarded(previewReply));
  $("apply").addEventListener("click", () => guarded(applyReply));
  $("undo").addEventListener("click", () => guarded(undoRound));
  $("reply-text").addEventListener("input", () => { $("apply").disabled = true; });
  $("refresh-breakdown").addEventListener("click", () => guarded(loadBreakdown));
  $("add-note").addEventListener("click", () => guarded(addNote));
  $("run").addEventListener("click", () => guarded(runCommand));
  guarded(async () => {
    await Promise.all([loadPromptSnippets(), loadTree()]);
    document.body.dataset.ready = "true";
    await loadBreakdown();
  });
}

start();
