// citegraph's page: plain DOM, no build step. Every piece of data is put in with textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const tokenInput = $("token");
tokenInput.value = sessionStorage.getItem("citegraph-token") || "";
function tokenChanged() {
  const token = tokenInput.value.trim();
  sessionStorage.setItem("citegraph-token", token);
  $("token-state").textContent = token ? "with a token" : "public";
  // uploading needs a token that may write: a public reader is not shown a form it cannot use
  $("upload-form").hidden = !token;
  $("upload-note").hidden = !!token;
  documentsSeen = null; // another caller reads other documents
  if (typeof renderEmpty === "function") renderEmpty();
}
tokenInput.addEventListener("change", tokenChanged);

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function headers(json) {
  const out = json ? { "Content-Type": "application/json" } : {};
  const token = tokenInput.value.trim();
  if (token) out["Authorization"] = "Bearer " + token;
  return out;
}

// an error a person can act on: the HTTP status named, the server's message kept
const STATUS_HINTS = {
  401: "the token is missing, unknown or revoked: check it under Access",
  403: "this token may not do that",
  404: "not found, or not readable with this token",
  413: "too large",
  422: "the request was refused",
  503: "a model or the store is busy or unavailable: try again",
};
class ApiError extends Error {
  constructor(status, type, message) {
    super(`${STATUS_HINTS[status] ? STATUS_HINTS[status] + " " : ""}(${status} ${type}): ${message}`);
    this.status = status;
  }
}

async function failure(response) {
  // the API's error shape, {ok: false, error: {type, message}}, as an ApiError
  let data = null;
  try { data = await response.json(); } catch (_) { /* not JSON */ }
  const error = (data && data.error) || { type: "http_error", message: response.statusText };
  return new ApiError(response.status, error.type, error.message);
}

async function api(path, options = {}) {
  const body = options.body && typeof options.body !== "string" ? JSON.stringify(options.body) : options.body;
  const response = await fetch(path, Object.assign({}, options, { body, headers: headers(!!body) }));
  if (!response.ok) throw await failure(response);
  return response.json();
}

function showError(box, message) {
  box.textContent = message || "";
  box.hidden = !message;
}

// -- words for codes: the codes stay in tooltips and the JSON -----------------------------------------
// the server's one vocabulary (GET /vocabulary): [label, tone, meaning] per answer status and
// [label, tone, symbol] per claim verdict; filled before the first answer is shown
const STATUS = {};
const VERDICT = {};
const SYMBOL = { good: "✓", bad: "✗", caution: "?", muted: "·" };
const vocabulary = fetch("/vocabulary").then((r) => r.json()).then((v) => {
  for (const [code, t] of Object.entries(v.answer)) STATUS[code] = [t.label, t.tone, t.means];
  for (const [code, t] of Object.entries(v.claim)) VERDICT[code] = [t.label, t.tone, SYMBOL[t.tone] || "?"];
}).catch(() => {}); // without it, codes are shown as words
const WARNING = {
  conflict: "Sources disagree",
  stale: "Stale source",
  not_found: "Not in your documents",
  no_evidence: "Nothing found",
  uncited: "A claim has no citation",
  invalid_marker: "A citation points at nothing",
  off_topic: "Off the question",
  summary: "Summary",
  overview: "Overview",
  not_an_answer: "Not shown to answer",
  follow_up: "Read as a follow-up",
};
const RELEVANCE = { addressed: "The answer addresses the question.", partly_addressed: "The answer partly addresses the question.", not_addressed: "The answer does not address the question." };
const STAGES = { retrieving: "Finding the evidence…", answering: "Writing the answer…", checking: "Checking each claim against its source…", comparing: "Comparing the sources…" };
const words = (code) => String(code).replace(/_/g, " ");

function where(c) {
  return `${c.document} · version ${String(c.version).slice(0, 8)} · characters ${c.start}–${c.end}`;
}

function routeText(route) {
  // a chain: each hop starts where the last one ended
  return route.reduce((text, h) => text + (h.direction === "out" ? ` -[${h.relation}]-> ${h.to}` : ` <-[${h.relation}]- ${h.to}`), route[0].from);
}

// -- asking, streamed -----------------------------------------------------------------------------------
let current = null; // the answer shown
let turns = []; // the conversation so far: each earlier answer (its question as read, its claims)
const MAX_TURNS = 4; // the turns sent with a follow-up (the server reads the last four)

function numberingOf(answer) {
  // the numbers a reader sees: 1..n in the order the answer first cites its sources (a not-found
  // answer's nearest evidence: 1..3); the JSON keeps the context's numbers (marker)
  const order = new Map();
  if (answer.status === "not_found" || answer.status === "no_evidence") {
    answer.context.slice(0, 3).forEach((c) => order.set(c.marker, order.size + 1));
    return order;
  }
  for (const claim of answer.claims) for (const c of claim.citations) if (!order.has(c.marker)) order.set(c.marker, order.size + 1);
  return order;
}

function turnOf(answer) {
  // what the next question is read from: the question as read, the reader's answer, the claims
  const lead = answer.lead ? answer.lead.text + ". " : "";
  return { question: answer.question, answer: lead + answer.claims.map((c) => c.text).join(" ") };
}

function renderTurns() {
  // the earlier turns, oldest first: each question, its status, its claims with their sources still clickable
  const list = $("turns");
  list.textContent = "";
  const earlier = turns.filter((t) => t !== current);
  for (const answer of earlier) {
    const item = el("li", "", "turn");
    const [statusWords, tone] = STATUS[answer.status] || [words(answer.status), "caution"];
    const head = el("p", "", "turn-question");
    head.append(el("strong", answer.question), " ", el("span", statusWords, "badge " + tone));
    item.append(head);
    const p = el("p", "", "turn-answer");
    if (!answer.claims.length) p.append(el("span", "No answer in your documents.", "note"));
    const numbers = numberingOf(answer);
    for (const claim of answer.claims) {
      p.append(el("span", claim.text + " ", "claim"));
      for (const c of claim.citations) p.append(chip(c, chipLabel(claim, c), numbers));
    }
    item.append(p);
    list.append(item);
  }
  $("conversation").hidden = earlier.length === 0;
}

$("new-conversation").addEventListener("click", () => {
  turns = [];
  current = null;
  $("result").hidden = true;
  $("empty-ask").hidden = false;
  renderTurns();
  $("question").focus();
});

function setBusy(busy, stage) {
  $("ask-button").disabled = busy;
  $("question").readOnly = busy;
  $("progress").hidden = !busy;
  $("progress-text").textContent = stage || "";
  $("ask-form").setAttribute("aria-busy", busy ? "true" : "false");
}

async function* events(response) {
  // server-sent events from a POST: "event: X\ndata: JSON\n\n"
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const kind = (block.match(/^event: (.*)$/m) || [])[1];
      const data = (block.match(/^data: (.*)$/m) || [])[1];
      if (kind && data !== undefined) yield [kind, JSON.parse(data)];
    }
  }
}

$("ask-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const question = $("question").value.trim();
  if (!question) return;
  const answerText = $("answer-text").value.trim();
  showError($("error"), "");
  closeSource();
  $("empty-ask").hidden = true;
  $("result").hidden = true;
  setBusy(true, STAGES.retrieving);
  const partial = { claims: [], context: [], draft: "" };
  try {
    const conversation = turns.slice(-MAX_TURNS).map(turnOf);
    const body = answerText ? { question, answer_text: answerText } : { question, conversation };
    await vocabulary;
    const response = await fetch("/ask/stream", { method: "POST", headers: headers(true), body: JSON.stringify(body) });
    if (!response.ok) throw await failure(response);
    for await (const [kind, data] of events(response)) {
      if (kind === "stage") $("progress-text").textContent = STAGES[data] || words(data);
      else if (kind === "context") partial.context = data;
      else if (kind === "token") { partial.draft += data; renderPartial(partial); } // a language model's text as it is written
      else if (kind === "draft") { partial.draft = data; partial.claims = []; partial.checking = true; renderPartial(partial); } // a redraft (the current source quoted first) starts the checks again
      else if (kind === "claim") { partial.claims[data.index] = data.claim; renderPartial(partial); }
      else if (kind === "done") {
        if (!answerText) turns.push(data); // a checked answer written elsewhere is no turn of the conversation
        renderAnswer(data);
        renderTurns();
      }
      else if (kind === "error") throw new ApiError(data.status, data.type, data.message);
    }
  } catch (error) {
    $("result").hidden = !current;
    showError($("error"), error.message);
  } finally {
    setBusy(false);
  }
});

function renderPartial(partial) {
  // while checking: the checked claims so far, then the rest of the draft, marked as not yet checked
  $("result").hidden = false;
  const claims = partial.claims.filter(Boolean);
  const checking = claims.length > 0 || partial.checking; // a model may still be writing: nothing is checked yet
  const status = $("status");
  status.textContent = checking ? "Checking…" : "Writing…";
  status.className = "badge caution";
  status.title = "";
  $("status-note").textContent = checking ? "claims appear here as they are checked" : "the answer as it is written; each claim is checked when it is done";
  const box = $("answer");
  box.textContent = "";
  const p = el("p");
  for (const claim of claims) renderClaim(p, claim, claims.indexOf(claim));
  box.append(p);
  // the draft's sentences no claim has been checked for yet, marked as such until their checks arrive
  const rest = partial.draft ? partial.draft.split(/(?<=[.!?])\s+/).slice(claims.length).join(" ") : "";
  if (rest.trim()) {
    const draft = el("p", null, "draft");
    draft.append(el("span", "Not yet checked: ", "draft-label"), el("span", rest));
    box.append(draft);
  }
  for (const id of ["warnings", "claims", "route-list", "context"]) $(id).textContent = "";
  $("relevance").textContent = "";
  $("routes").hidden = true;
}

function renderClaim(parent, claim, index, numbers) {
  const [verdictWords, tone, symbol] = VERDICT[claim.status] || [words(claim.status), "caution", "?"];
  // the claim's last word, its chips and its mark stay on one line (no ✓ alone at a line's start)
  const cut = claim.text.trimEnd().lastIndexOf(" ");
  const span = el("span", cut > 0 ? claim.text.slice(0, cut + 1) : "", "claim" + (tone === "bad" ? " bad-claim" : ""));
  span.id = `claim-${index}`;
  parent.append(span);
  const end = el("span", null, "claim-end");
  end.append(el("span", cut > 0 ? claim.text.slice(cut + 1) : claim.text, "claim" + (tone === "bad" ? " bad-claim" : "")));
  for (const c of claim.citations) end.append(chip(c, chipLabel(claim, c), numbers));
  for (const m of claim.invalid_markers) {
    const bad = el("span", String(m), "chip bad");
    bad.title = `[${m}] points at nothing in the context`;
    end.append(bad);
  }
  const mark = el("button", symbol, "mark " + tone);
  mark.type = "button";
  mark.title = `${verdictWords}: how it was checked`;
  mark.setAttribute("aria-label", `claim ${index + 1}: ${verdictWords}; show how it was checked`);
  mark.addEventListener("click", () => showAudit(index));
  end.append(mark);
  parent.append(end, document.createTextNode(" "));
}

// a question quoted as asked is shown as such, not as a check that could not be made
const chipLabel = (claim, c) => (claim.status === "asked" ? "asked" : c.support.label);

function chip(c, label, numbers) {
  const [verdictWords, verdictTone] = VERDICT[label] || [label ? words(label) : "context", label ? "caution" : "good"];
  const tone = verdictTone === "good" && c.stale ? "caution" : verdictTone; // a stale source is never shown as plainly good
  const shown = (numbers && numbers.get(c.marker)) || c.marker;
  const button = el("button", String(shown), "chip" + (tone === "good" ? "" : " " + tone));
  button.type = "button";
  button.setAttribute("aria-label", `source ${shown}: ${verdictWords}${c.stale ? ", from a stale source" : ""}; open ${c.document}`);
  button.dataset.marker = c.marker;
  const show = () => showPreview(button, c, label);
  button.addEventListener("mouseenter", show);
  button.addEventListener("focus", show);
  button.addEventListener("mouseleave", hidePreview);
  button.addEventListener("blur", hidePreview);
  button.addEventListener("click", () => openSource(c.document, c.version, c.start, c.end, button));
  return button;
}

function showPreview(anchor, c, label) {
  const box = $("preview");
  box.textContent = "";
  box.append(el("span", `“${c.sentence}”`));
  const verdict = label ? ` · ${(VERDICT[label] || [words(label)])[0]}` + (c.support && c.support.score !== null ? ` (${c.support.stage}, ${c.support.score.toFixed(2)})` : c.support ? ` (${c.support.stage})` : "") : "";
  box.append(el("span", where(c) + verdict + (c.stale ? " · stale: " + c.stale : ""), "where"));
  box.hidden = false;
  const r = anchor.getBoundingClientRect();
  const width = box.offsetWidth, height = box.offsetHeight;
  let left = Math.min(Math.max(8, r.left + r.width / 2 - width / 2), window.innerWidth - width - 8);
  let top = r.bottom + 8;
  if (top + height > window.innerHeight - 8) top = Math.max(8, r.top - height - 8);
  box.style.left = left + "px";
  box.style.top = top + "px";
  anchor.setAttribute("aria-describedby", "preview");
}

function hidePreview() {
  $("preview").hidden = true;
}

function showAudit(index) {
  const audit = $("audit");
  audit.open = true;
  const item = $(`audit-${index}`);
  if (item) {
    item.scrollIntoView({ block: "center" });
    item.focus();
  }
}

function renderAnswer(answer) {
  current = answer;
  const numbers = numberingOf(answer);
  $("result").hidden = false;
  const summary = answer.status === "related" && answer.retrieval && answer.retrieval.summary;
  const themes = (answer.retrieval && answer.retrieval.communities) || [];
  const [statusWords, tone, note] = summary && themes.length
    ? ["Overview, not checked", "muted", `one quoted point from each of ${themes.length} themes of your documents (communities of the graph); each quote is checked, that they are the main points is not`]
    : summary
    ? ["Summary, not checked", "muted", "each sentence quotes " + answer.retrieval.summary + " for one of its sections; that they sum it up is not checked"]
    : STATUS[answer.status] || [words(answer.status), "caution", ""];
  const status = $("status");
  status.textContent = statusWords;
  status.className = "badge " + tone;
  status.title = "status: " + answer.status;
  status.dataset.code = answer.status;
  $("status-note").textContent = note;

  const box = $("answer");
  box.textContent = "";
  const spelled = (answer.retrieval && answer.retrieval.spelled_out) || [];
  const followUp = (answer.warnings || []).find((w) => w.code === "follow_up");
  if (followUp) {
    // a follow-up, written out from the turns before it: say how it was read
    box.append(el("p", followUp.read_as !== followUp.asked ? `Read as a follow-up: “${followUp.read_as}”` : "Asked as written: the earlier turns do not say what it refers to.", "note"));
  }
  if (spelled.length) {
    // the question was read with the abbreviations the documents define spelled out
    box.append(el("p", "Read with the abbreviations your documents define: " + spelled.map(x => `${x.short} = ${x.long}`).join("; "), "note"));
  }
  if (answer.status === "not_found" || answer.status === "no_evidence") {
    // the status says it is not in the documents; said once, with why below in the warnings
    if (answer.context.length) {
      box.append(el("p", "Nearest evidence (context only, not an answer):", "note"));
      const list = el("ul");
      for (const c of answer.context.slice(0, 3)) {
        const item = el("li");
        item.append(el("span", `“${c.sentence}” `), chip(c, null, numbers));
        list.append(item);
      }
      box.append(list);
    }
  } else {
    if (answer.lead) {
      // the answer's own words, where the reader found them in a cited sentence (only on a green answer)
      const lead = el("p", "", "lead");
      lead.title = `the reader's words in the sentence [${answer.lead.marker}] cites (P ${answer.lead.probability.toFixed(2)}); ${answer.lead.document}, characters ${answer.lead.start}–${answer.lead.end}`;
      lead.append(el("strong", answer.lead.text), el("span", ` [${numbers.get(answer.lead.marker) || answer.lead.marker}]`, "marker"));
      box.append(lead);
    }
    if (themes.length) {
      box.append(renderThemes(answer, themes, numbers));
    } else {
      const p = el("p");
      answer.claims.forEach((claim, i) => renderClaim(p, claim, i, numbers));
      box.append(p);
    }
  }
  renderSources(answer, numbers);

  const warnings = $("warnings");
  warnings.textContent = "";
  for (const w of answer.warnings) {
    const item = el("li");
    item.title = "warning: " + w.code;
    item.dataset.code = w.code;
    if (w.code === "not_found" && w.why) item.append(el("strong", "Why: "), el("span", w.why)); // the status already says it
    else item.append(el("strong", (WARNING[w.code] || words(w.code)) + ": "), el("span", renumbered(w.message, numbers)));
    warnings.append(item);
  }
  const r = answer.relevance;
  $("relevance").textContent = answer.status === "not_found" ? "" : RELEVANCE[r.label] || "";
  $("relevance").title = r.label ? "relevance: " + r.label + (r.missing && r.missing.length ? "; not mentioned: " + r.missing.join(", ") : "") : "";
  renderAudit(answer, numbers);
  drawRoutes(answer);
  const context = $("context");
  context.textContent = "";
  for (const c of answer.context) {
    const item = el("li");
    const link = el("button", `${c.document} (${c.start}–${c.end})`, "link");
    link.type = "button";
    link.addEventListener("click", () => openSource(c.document, c.version, c.start, c.end, link));
    item.append(link, el("span", ` “${c.sentence}”`));
    if (numbers.has(c.marker)) item.append(el("span", ` cited as [${numbers.get(c.marker)}]`, "note"));
    if (c.stale) item.append(el("span", "stale: " + c.stale, "stale"));
    context.append(item);
  }
}

// -- the sources an answer cites: one line each, numbered as its chips ------------------------------
let documentsSeen = null; // GET /documents of this caller, kept until the token changes or a document is added
function documentsOf() {
  if (!documentsSeen) documentsSeen = api("/documents").catch(() => []);
  return documentsSeen;
}

function stateOf(d) {
  if (!d) return "";
  return d.superseded_by ? `superseded by ${d.superseded_by}` : d.current ? "current" : "an older version";
}

async function renderSources(answer, numbers) {
  const list = $("sources");
  list.textContent = "";
  const cited = new Map();
  for (const claim of answer.claims) for (const c of claim.citations) if (!cited.has(c.marker)) cited.set(c.marker, c);
  const shown = answer.status === "not_found" || answer.status === "no_evidence" ? [] : [...numbers.keys()].filter((m) => cited.has(m));
  $("sources-box").hidden = !shown.length;
  if (!shown.length) return;
  const docs = await documentsOf();
  if (current !== answer) return; // another answer is shown by now
  for (const marker of shown) {
    const c = cited.get(marker);
    const d = docs.find((x) => x.id === c.document && x.version === c.version) || docs.find((x) => x.id === c.document);
    const item = el("li");
    item.value = numbers.get(marker);
    const open = el("button", (d && d.title) || c.document, "link source-name");
    open.type = "button";
    open.addEventListener("click", () => openSource(c.document, c.version, c.start, c.end, open));
    const facts = [];
    if (d && d.title) facts.push(c.document);
    if (d && d.dated) facts.push(`dated ${d.dated}`);
    facts.push(`version ${String(c.version).slice(0, 8)}`);
    if (d && d.version !== c.version) facts.push("an older version");
    else if (d) facts.push(stateOf(d));
    const meta = el("span", null, "source-meta");
    facts.forEach((fact, i) => meta.append(...(i ? [" · "] : []), el("span", fact, "fact"))); // a line breaks between facts, not inside one
    for (const a of (d && d.access) || []) meta.append(el("span", a, "label"));
    item.append(open, meta);
    if (c.stale) item.append(el("span", "stale: " + renumbered(c.stale, numbers), "stale"));
    list.append(item);
  }
}

function renumbered(text, numbers) {
  // the server's messages name context items by their numbers: shown as the reader's numbers where
  // the answer cites them, as "context N" where it does not (the context list says which is which)
  // "[2, 3]" as the Markdown reply reads it too; "context item [context 3]" said once
  const one = (n) => (numbers.has(Number(n)) ? String(numbers.get(Number(n))) : `context ${n}`);
  return String(text)
    .replace(/\[(\d+(?:\s*,\s*\d+)*)\]/g, (whole, list) => `[${list.split(",").map((n) => one(n.trim())).join(", ")}]`)
    .replace(/context item \[context /g, "[context ");
}

function renderThemes(answer, themes, numbers) {
  // an answer about the whole corpus: its points grouped by the community (theme) each stands for
  const list = el("ul", null, "themes");
  const groups = new Map(themes.map((t) => [t.id, []]));
  answer.claims.forEach((claim, i) => {
    const id = claim.citations.length ? claim.citations[0].community : null;
    if (!groups.has(id)) groups.set(id, []);
    groups.get(id).push([claim, i]);
  });
  const titles = Object.fromEntries(themes.map((t) => [t.id, t.title]));
  for (const [id, claims] of groups) {
    if (!claims.length) continue;
    const item = el("li", null, "theme");
    const name = el("span", titles[id] || "Other points", "theme-name");
    name.title = id ? `community ${id} of the graph (citegraph communities lists its entities and documents)` : "";
    const p = el("p");
    for (const [claim, i] of claims) renderClaim(p, claim, i, numbers);
    item.append(name, p);
    list.append(item);
  }
  return list;
}

function renderAudit(answer, numbers) {
  const claims = $("claims");
  claims.textContent = "";
  answer.claims.forEach((claim, i) => {
    const item = el("li");
    item.id = `audit-${i}`;
    item.tabIndex = -1;
    const [verdictWords, tone] = VERDICT[claim.status] || [words(claim.status), "caution"];
    item.append(el("span", claim.text + " "), el("span", verdictWords, "badge " + tone));
    for (const c of claim.citations) {
      const line = el("span", null, "citation");
      const open = el("button", `[${numbers.get(c.marker) || c.marker}] ${where(c)}`, "link");
      open.type = "button";
      open.addEventListener("click", () => openSource(c.document, c.version, c.start, c.end, open));
      const s = c.support;
      const score = s.score === null ? "no score" : `score ${s.score.toFixed(2)}${s.calibrated ? " (calibrated)" : " (uncalibrated)"}`;
      line.append(open, el("span", ` “${c.sentence}”`));
      item.append(line, el("span", `${(VERDICT[s.label] || [words(s.label)])[0]}: decided by ${s.stage} (${s.verifier}), ${score}`, "detail" + (s.label === "supported" ? "" : " bad")));
      for (const g of s.guards) item.append(el("span", (s.label === "supported" ? "note: " : "why: ") + g, "detail" + (s.label === "supported" ? "" : " bad")));
      const found = c.found_by === "time" ? "the time of the conversation or message a quoted line is from"
        : c.found_by === "sender" ? "who sent the message a quoted sentence is from"
        : c.found_by === "subject" ? "the sentence before a quoted one that opens with a pronoun: it names what the pronoun stands for"
        : "found by " + words(c.found_by || "similarity");
      item.append(el("span", c.route && c.route.length ? "found by the route " + routeText(c.route) : found, "detail"));
      if (c.stale) item.append(el("span", "stale: " + c.stale, "detail bad"));
    }
    for (const m of claim.invalid_markers) item.append(el("span", `[${m}] points at nothing in the context`, "detail bad"));
    claims.append(item);
  });
}

// -- routes: those of the cited evidence; everything reached on request ------------------------------------
const MAX_ROUTES = 15;
const EDGE_LABELS = 6; // edges named at once, at most
$("all-routes").addEventListener("change", () => current && drawRoutes(current));
// on a phone the graph's labels would be too small to read at the screen's width: it waits behind its
// toggle (the routes in words are below it); opened, it is drawn to fit its box
$("graph-box").open = !window.matchMedia("(max-width: 767px)").matches;
$("graph-box").addEventListener("toggle", () => {
  if ($("graph-box").open && current) drawRoutes(current);
});

function drawRoutes(answer) {
  const cited = answer.claims.flatMap((claim) => claim.citations.map((c) => c.route)).filter((r) => r && r.length);
  const reached = answer.retrieval.nodes.map((n) => n.route).filter((r) => r && r.length).slice(0, MAX_ROUTES);
  const all = $("all-routes").checked;
  const routes = all ? cited.concat(reached) : cited;
  $("routes").hidden = !cited.length && !reached.length;
  const list = $("route-list");
  list.textContent = "";
  if (window.citegraphGraph) { window.citegraphGraph.destroy(); window.citegraphGraph = null; }
  $("graph").textContent = "";
  $("graph-box").hidden = !routes.length; // no empty box under its toggle
  $("routes-none").hidden = routes.length > 0;
  if (!routes.length) return;
  const nodes = new Map();
  const edges = new Map();
  for (const route of routes) {
    list.append(el("li", routeText(route)));
    for (const h of route) {
      const [source, target] = h.direction === "out" ? [h.from, h.to] : [h.to, h.from];
      nodes.set(source, { data: { id: "n:" + source, label: source } });
      nodes.set(target, { data: { id: "n:" + target, label: target } });
      const id = `e:${source}|${h.relation}|${target}|${h.span.document}|${h.span.start}`;
      edges.set(id, { data: { id, source: "n:" + source, target: "n:" + target, label: h.relation, span: h.span } });
    }
  }
  if (typeof cytoscape !== "function") return; // the list still says it in words
  const css = getComputedStyle(document.documentElement);
  const color = (name) => css.getPropertyValue(name).trim();
  const cy = cytoscape({
    container: $("graph"),
    // never drawn smaller than 3/4 of its size, so a node's label stays at least 10.5 px; a larger graph is panned
    minZoom: 0.75,
    maxZoom: 2,
    elements: [...nodes.values(), ...edges.values()],
    layout: { name: "breadthfirst", directed: true, spacingFactor: 1.6, padding: 24, boundingBox: layoutBox(nodes, edges) },
    style: [
      { selector: "node", style: { label: "data(label)", "font-size": 14, color: color("--text"), "background-color": color("--accent"), width: 14, height: 14, "text-valign": "bottom", "text-margin-y": 6, "text-background-color": color("--surface"), "text-background-opacity": 0.9, "text-background-padding": 2, "text-wrap": "wrap", "text-max-width": 140 } },
      // with a few edges every relation is named; with more, an edge names its relation when pointed at
      // (the list below names them all), so no label is drawn over another
      { selector: "edge", style: { label: edges.size <= EDGE_LABELS ? "data(label)" : "", "font-size": 12, color: color("--muted"), "curve-style": "bezier", "target-arrow-shape": "triangle", width: 1.5, "line-color": color("--line"), "target-arrow-color": color("--muted"), "text-rotation": "autorotate", "text-background-color": color("--surface"), "text-background-opacity": 1, "text-background-padding": 2 } },
      { selector: "edge.named", style: { label: "data(label)", "z-index": 10 } },
    ],
  });
  cy.on("mouseover", "edge", (event) => event.target.addClass("named"));
  cy.on("mouseout", "edge", (event) => event.target.removeClass("named"));
  cy.on("tap", "edge", (event) => {
    const span = event.target.data("span");
    openSource(span.document, span.version, span.start, span.end);
  });
  window.citegraphGraph = cy; // for the browser tests
}

function layoutBox(nodes, edges) {
  // room for every label: as wide as the widest row of the breadth-first layout needs (a narrow
  // screen then shows the graph smaller, and it can be zoomed), never narrower than the box
  const box = $("graph");
  const incoming = new Map([...nodes.keys()].map((k) => [k, 0]));
  const out = new Map([...nodes.keys()].map((k) => [k, []]));
  for (const e of edges.values()) {
    const [s, t] = [e.data.source.slice(2), e.data.target.slice(2)];
    incoming.set(t, incoming.get(t) + 1);
    out.get(s).push(t);
  }
  const depth = new Map();
  let frontier = [...nodes.keys()].filter((k) => incoming.get(k) === 0);
  if (!frontier.length) frontier = [...nodes.keys()].slice(0, 1);
  for (let d = 0; frontier.length; d++) {
    frontier = frontier.filter((k) => !depth.has(k));
    for (const k of frontier) depth.set(k, d);
    frontier = frontier.flatMap((k) => out.get(k));
  }
  const rows = new Map();
  for (const k of nodes.keys()) rows.set(depth.get(k) || 0, (rows.get(depth.get(k) || 0) || 0) + 1);
  const widest = Math.max(...rows.values());
  const label = Math.max(...[...nodes.keys()].map((k) => Math.min(String(k).length, 20))) * 8 + 24; // about 8 px a character at 14 px
  return { x1: 0, y1: 0, w: Math.max(box.clientWidth, widest * label), h: Math.max(box.clientHeight, rows.size * 90) };
}

// -- a source, at its version, the cited span highlighted by its offsets -----------------------------
let opener = null;
async function openSource(documentId, version, start, end, from) {
  showError($("error"), "");
  hidePreview();
  try {
    const query = version ? `?version=${encodeURIComponent(version)}` : "";
    const doc = await api(`/documents/${encodeURIComponent(documentId)}${query}`);
    const chars = Array.from(doc.text); // offsets are code points, not UTF-16 units
    const pre = $("source-text");
    pre.textContent = "";
    let mark = null;
    if (start !== undefined && start !== null) {
      mark = el("mark", chars.slice(start, end).join(""));
      mark.id = "cited";
      pre.append(document.createTextNode(chars.slice(0, start).join("")), mark, document.createTextNode(chars.slice(end).join("")));
    } else {
      pre.textContent = doc.text;
    }
    const shownVersion = doc.versions.find((v) => v.version === doc.version);
    $("source-title").textContent = (shownVersion && shownVersion.title) || doc.id;
    const now = doc.versions.find((v) => v.current);
    const span = mark ? `characters ${start}–${end}` : `${chars.length} characters`;
    const facts = [shownVersion && shownVersion.title ? doc.id : null, shownVersion && shownVersion.dated ? `dated ${shownVersion.dated}` : null, `version ${String(doc.version).slice(0, 8)}`];
    const state = shownVersion && shownVersion.superseded_by ? `superseded by ${shownVersion.superseded_by}`
      : doc.current ? "current" : "an older version" + (now ? `; the current one is ${String(now.version).slice(0, 8)}` : "");
    $("source-note").textContent = [...facts.filter(Boolean), state, span].join(" · ");
    opener = from || null;
    $("source").hidden = false;
    $("backdrop").hidden = !window.matchMedia("(max-width: 767px)").matches;
    $("layout").classList.add("with-source");
    refit();
    if (mark) mark.scrollIntoView({ block: "center" });
    $("source-close").focus({ preventScroll: true });
  } catch (error) {
    const box = $("docs-view").hidden ? $("error") : $("docs-error");
    showError(box, error.message);
  }
}

function closeSource() {
  if ($("source").hidden) return;
  $("source").hidden = true;
  $("backdrop").hidden = true;
  $("layout").classList.remove("with-source");
  refit();
  if (opener && document.body.contains(opener)) opener.focus();
  opener = null;
}
$("source-close").addEventListener("click", closeSource);
$("backdrop").addEventListener("click", closeSource);
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") {
    hidePreview();
    closeSource();
  }
});

function refit() {
  // the source panel takes room from the answer: the graph's canvas follows its box
  if (window.citegraphGraph) {
    window.citegraphGraph.resize();
    window.citegraphGraph.fit(undefined, 20);
  }
}

// -- documents ------------------------------------------------------------------------------------
function showTab(name) {
  closeSource();
  $("ask-view").hidden = name !== "ask";
  $("docs-view").hidden = name !== "docs";
  for (const [tab, view] of [["tab-ask", "ask"], ["tab-docs", "docs"]]) {
    if (view === name) $(tab).setAttribute("aria-current", "page");
    else $(tab).removeAttribute("aria-current");
  }
  if (name === "docs") loadDocuments();
}
$("tab-ask").addEventListener("click", () => showTab("ask"));
$("tab-docs").addEventListener("click", () => showTab("docs"));

async function loadDocuments() {
  showError($("docs-error"), "");
  documentsSeen = null; // an upload or a delete changes what the source list and the empty page read
  const table = $("documents");
  const body = table.querySelector("tbody");
  body.textContent = "";
  let docs;
  try {
    docs = await api("/documents");
  } catch (error) {
    table.hidden = true;
    $("docs-empty").hidden = true;
    showError($("docs-error"), error.message);
    return;
  }
  table.hidden = !docs.length;
  $("docs-empty").hidden = docs.length > 0;
  for (const d of docs) {
    const row = el("tr");
    const name = el("td");
    const open = el("button", d.id, "link");
    open.type = "button";
    open.addEventListener("click", () => openSource(d.id, d.version, null, null, open));
    name.append(open);
    if (d.label) name.append(el("span", " " + d.label, "note"));
    const labels = el("td");
    for (const a of d.access) labels.append(el("span", a, "label"));
    const state = d.superseded_by ? `superseded by ${d.superseded_by}` : d.current ? "current" : "older version";
    row.append(name, el("td", d.dated || "–", "date"), el("td", (d.ingested_at || "").slice(0, 10), "date"), labels, el("td", d.status === "ok" || !d.status ? state : `${state}, ${words(d.status)}`), el("td", d.sentences));
    const cell = el("td");
    if (d.current && tokenInput.value.trim()) { // deleting needs a token
      const remove = el("button", "Delete", "danger");
      remove.type = "button";
      remove.setAttribute("aria-label", `delete ${d.id}`);
      remove.addEventListener("click", async () => {
        if (!confirm(`Delete ${d.id}, every version? Claims that cite it will lose their source.`)) return;
        try {
          await api(`/documents/${encodeURIComponent(d.id)}`, { method: "DELETE" });
          loadDocuments();
        } catch (error) {
          showError($("docs-error"), error.message);
        }
      });
      cell.append(remove);
    }
    row.append(cell);
    body.append(row);
  }
}

function base64Of(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",", 2)[1] || "");
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

$("upload-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  showError($("docs-error"), "");
  const files = Array.from($("files").files);
  if (!files.length) {
    showError($("docs-error"), "choose one or more files first (.txt .md .html .pdf .docx .xlsx .pptx .csv .eml .vtt, chat .json)");
    return;
  }
  const access = $("access").value.split(",").map((s) => s.trim()).filter(Boolean);
  const list = $("upload-files");
  list.textContent = "";
  const rows = new Map();
  for (const f of files) {
    const item = el("li");
    const bar = el("progress");
    bar.max = 1;
    bar.value = 0;
    bar.setAttribute("aria-label", `${f.name} progress`);
    const state = el("span", "waiting", "note");
    item.append(el("span", f.name), bar, state);
    list.append(item);
    rows.set(f.name, { bar, state });
  }
  const submit = event.submitter || $("upload-form").querySelector("button");
  submit.disabled = true;
  try {
    const documents = await Promise.all(files.map(async (f) => ({ name: f.name, content_base64: await base64Of(f) })));
    const job = await api("/documents", { method: "POST", body: access.length ? { documents, access } : { documents } });
    for (let i = 0; i < 1200; i++) { // at most 10 minutes of polling
      const s = await api(`/jobs/${job.job}`);
      files.forEach((f, k) => {
        const row = rows.get(f.name);
        if (k < s.done) { row.bar.value = 1; row.state.textContent = "added"; }
        else if (s.current === f.name) { row.bar.removeAttribute("value"); row.state.textContent = "reading…"; }
      });
      if (s.state === "failed") throw new Error("the upload failed: " + (s.error || "see the server log"));
      if (s.state === "done") {
        for (const d of (s.report && s.report.documents) || []) {
          const row = rows.get(String(d.id).split("/").pop());
          if (!row) continue;
          row.bar.value = 1;
          row.state.textContent = d.status === "ok" ? "added" : words(d.status) + (d.reason ? ": " + d.reason : "");
        }
        break;
      }
      await new Promise((r) => setTimeout(r, 400));
    }
    loadDocuments();
  } catch (error) {
    for (const row of rows.values()) if (row.state.textContent !== "added") row.state.textContent = "not added";
    showError($("docs-error"), error.message);
  } finally {
    submit.disabled = false;
  }
});

// -- the empty page: how many documents this caller may read, and questions to start with ------------
async function renderEmpty() {
  const docs = (await documentsOf()).filter((d) => d.current);
  $("doc-count").textContent = docs.length === 1 ? "1 document you may read." : `${docs.length} documents you may read.`;
  const titled = docs.filter((d) => d.title).sort((a, b) => b.sentences - a.sentences).slice(0, 2);
  const examples = docs.length ? ["What are the main themes of these documents?", ...titled.map((d) => `Summarize ${d.title}.`)] : [];
  const list = $("example-list");
  list.textContent = "";
  for (const question of examples) {
    const item = el("li");
    const button = el("button", question, "example");
    button.type = "button";
    button.addEventListener("click", () => {
      $("question").value = question;
      $("ask-form").requestSubmit();
    });
    item.append(button);
    list.append(item);
  }
  $("examples").hidden = !examples.length;
}
tokenChanged();
