// citegraph's page: plain DOM, no build step. Every piece of data is put in with textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const tokenInput = $("token");
tokenInput.value = sessionStorage.getItem("citegraph-token") || "";
tokenInput.addEventListener("change", () => sessionStorage.setItem("citegraph-token", tokenInput.value.trim()));

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers || {});
  const token = tokenInput.value.trim();
  if (token) headers["Authorization"] = "Bearer " + token;
  if (options.body && typeof options.body !== "string") {
    headers["Content-Type"] = "application/json";
    options = Object.assign({}, options, { body: JSON.stringify(options.body) });
  }
  const response = await fetch(path, Object.assign({}, options, { headers }));
  const data = await response.json();
  if (!response.ok) {
    const error = (data && data.error) || { type: String(response.status), message: response.statusText };
    throw new Error(error.type + ": " + error.message);
  }
  return data;
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

// -- ask ------------------------------------------------------------------------------------------
$("ask-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  showError("");
  const question = $("question").value.trim();
  const answerText = $("answer-text").value.trim();
  try {
    const answer = answerText
      ? await api("/verify", { method: "POST", body: { question, answer_text: answerText } })
      : await api("/ask", { method: "POST", body: { question } });
    renderAnswer(answer);
  } catch (error) {
    $("result").hidden = true;
    showError(error.message);
  }
});

const STATUS_NOTES = {
  verified: "every claim is supported by the sentence it cites",
  quoted: "every claim quotes the sentence it cites: support is exact; which sentences were chosen is retrieval's",
  conflicting: "the sources disagree (in the answer or in the evidence it was given): see the warnings",
  cited: "every claim cites a sentence, but nothing checked the support",
  partially_supported: "some claims are supported, some are not",
  unsupported: "no claim is supported by what it cites",
  no_evidence: "nothing this token may read matches the question",
  not_found: "the documents this token may read do not answer this question; the nearest evidence is shown below, not as an answer",
};

function where(c) {
  return `${c.document}@${String(c.version).slice(0, 8)}:${c.start}-${c.end}`;
}

function routeText(route) {
  // a chain: each hop starts where the last one ended
  return route.reduce((text, h) => text + (h.direction === "out" ? ` -[${h.relation}]-> ${h.to}` : ` <-[${h.relation}]- ${h.to}`), route[0].from);
}

function renderAnswer(answer) {
  $("result").hidden = false;
  const status = $("status");
  status.textContent = answer.status;
  status.className = "badge " + answer.status;
  $("status-note").textContent = STATUS_NOTES[answer.status] || "";
  const r = answer.relevance;
  const relevance = $("relevance");
  relevance.textContent = "";
  relevance.append(el("span", r.label.replace(/_/g, " "), "badge " + r.label));
  const parts = [];
  if (r.expected) parts.push(`asks for a ${r.expected}: ${r.found_type ? "stated" : "none stated"}`);
  if (r.missing && r.missing.length) parts.push("not mentioned: " + r.missing.join(", "));
  relevance.append(el("span", parts.length ? " (" + parts.join("; ") + ")" : "", "note"));

  const claims = $("claims");
  claims.textContent = "";
  for (const claim of answer.claims) {
    const item = el("li");
    item.append(el("span", claim.text), document.createTextNode(" "), el("span", claim.status.replace(/_/g, " "), "badge " + claim.status));
    for (const c of claim.citations) {
      const line = el("span", null, "citation");
      const link = el("a", `[${c.marker}] ${where(c)}`);
      link.href = "#";
      link.dataset.document = c.document;
      link.dataset.version = c.version;
      link.dataset.start = c.start;
      link.dataset.end = c.end;
      link.addEventListener("click", (event) => {
        event.preventDefault();
        openSource(c.document, c.version, c.start, c.end);
      });
      const s = c.support;
      const score = s.score === null ? "" : ` ${s.score.toFixed(2)}${s.calibrated ? "" : " uncalibrated"}`;
      line.append(link, el("span", ` “${c.sentence}”`), el("span", `  support: ${s.label.replace(/_/g, " ")}${score} (decided by ${s.stage})`, "note " + s.label));
      item.append(line);
      // notes and guards: a warning when the citation is not supported, a note beside a supported one (as the CLI prints them)
      for (const g of s.guards) item.append(s.label === "supported" ? el("span", "note: " + g, "route") : el("span", "guard: " + g, "guard"));
      if (c.route && c.route.length) item.append(el("span", "found by route: " + routeText(c.route), "route"));
      else item.append(el("span", "found by: " + (c.found_by || "similarity"), "route"));
    }
    for (const m of claim.invalid_markers) item.append(el("span", `marker [${m}] points at nothing in the context`, "guard"));
    claims.append(item);
  }
  const warnings = $("warnings");
  warnings.textContent = "";
  for (const w of answer.warnings) warnings.append(el("li", `warning [${w.code}]: ${w.message}`));
  drawRoutes(answer);
  const context = $("context");
  context.textContent = "";
  for (const c of answer.context) {
    const item = el("li");
    const link = el("a", where(c));
    link.href = "#";
    link.addEventListener("click", (event) => {
      event.preventDefault();
      openSource(c.document, c.version, c.start, c.end);
    });
    item.append(link, el("span", ` “${c.sentence}”`));
    if (c.stale) item.append(el("span", "stale: " + c.stale, "guard"));
    context.append(item);
  }
}

// -- routes: the citations' own, else the first reached entities' ------------------------------------
const MAX_ROUTES = 15;

function drawRoutes(answer) {
  let routes = answer.claims.flatMap((claim) => claim.citations.map((c) => c.route)).filter((r) => r && r.length);
  if (!routes.length) routes = answer.retrieval.nodes.map((n) => n.route).filter((r) => r && r.length).slice(0, MAX_ROUTES);
  const box = $("routes");
  box.hidden = !routes.length;
  const list = $("route-list");
  list.textContent = "";
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
  if (typeof cytoscape !== "function") return; // the list above still says it in words
  const cy = cytoscape({
    container: $("graph"),
    elements: [...nodes.values(), ...edges.values()],
    layout: { name: "breadthfirst", directed: true, spacingFactor: 1.1 },
    style: [
      { selector: "node", style: { label: "data(label)", "font-size": 11, "background-color": "#4a6fa5", "text-valign": "bottom" } },
      { selector: "edge", style: { label: "data(label)", "font-size": 10, "curve-style": "bezier", "target-arrow-shape": "triangle", width: 2, "line-color": "#999", "target-arrow-color": "#999", "text-rotation": "autorotate" } },
    ],
  });
  cy.on("tap", "edge", (event) => {
    const span = event.target.data("span");
    openSource(span.document, span.version, span.start, span.end);
  });
  window.citegraphGraph = cy; // for the browser tests
}

// -- a source, at its version, the cited span highlighted by its offsets -----------------------------
async function openSource(documentId, version, start, end) {
  showError("");
  try {
    const doc = await api(`/documents/${encodeURIComponent(documentId)}?version=${encodeURIComponent(version)}`);
    const chars = Array.from(doc.text); // offsets are code points, not UTF-16 units
    const pre = $("source-text");
    pre.textContent = "";
    const mark = el("mark", chars.slice(start, end).join(""));
    mark.id = "cited";
    pre.append(document.createTextNode(chars.slice(0, start).join("")), mark, document.createTextNode(chars.slice(end).join("")));
    $("source-title").textContent = `${doc.id} @ ${String(doc.version).slice(0, 8)}`;
    const current = doc.versions.find((v) => v.current);
    $("source-note").textContent = doc.current
      ? `characters ${start}-${end}`
      : `characters ${start}-${end} of a superseded version` + (current ? `; the current one is ${String(current.version).slice(0, 8)}` : "");
    $("source").hidden = false;
    refit();
    mark.scrollIntoView({ block: "center" });
  } catch (error) {
    showError(error.message);
  }
}
$("source-close").addEventListener("click", () => {
  $("source").hidden = true;
  refit();
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
  $("ask-view").hidden = name !== "ask";
  $("docs-view").hidden = name !== "docs";
  $("tab-ask").classList.toggle("active", name === "ask");
  $("tab-docs").classList.toggle("active", name === "docs");
  if (name === "docs") loadDocuments();
}
$("tab-ask").addEventListener("click", () => showTab("ask"));
$("tab-docs").addEventListener("click", () => showTab("docs"));

async function loadDocuments() {
  showError("");
  const body = $("documents").querySelector("tbody");
  body.textContent = "";
  try {
    for (const d of await api("/documents")) {
      const row = el("tr");
      for (const value of [d.id, String(d.version).slice(0, 8), d.status, d.current ? "current" : "superseded", d.access.join(", "), d.sentences]) {
        row.append(el("td", value));
      }
      const cell = el("td");
      if (d.current && tokenInput.value.trim()) { // deleting needs a token
        const remove = el("button", "delete");
        remove.type = "button";
        remove.addEventListener("click", async () => {
          if (!confirm(`Delete ${d.id}, every version?`)) return;
          try {
            await api(`/documents/${encodeURIComponent(d.id)}`, { method: "DELETE" });
            loadDocuments();
          } catch (error) {
            showError(error.message);
          }
        });
        cell.append(remove);
      }
      row.append(cell);
      body.append(row);
    }
  } catch (error) {
    showError(error.message);
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
  showError("");
  const files = Array.from($("files").files);
  if (!files.length) return;
  const access = $("access").value.split(",").map((s) => s.trim()).filter(Boolean);
  const progress = $("upload-progress");
  const state = $("upload-state");
  try {
    const documents = await Promise.all(files.map(async (f) => ({ name: f.name, content_base64: await base64Of(f) })));
    const job = await api("/documents", { method: "POST", body: access.length ? { documents, access } : { documents } });
    progress.hidden = false;
    for (let i = 0; i < 1200; i++) { // at most 10 minutes of polling
      const s = await api(`/jobs/${job.job}`);
      progress.max = s.total || 1;
      progress.value = s.done;
      state.textContent = `${s.state}: ${s.done} of ${s.total}` + (s.current ? ` (${s.current})` : "") + (s.error ? ` ${s.error}` : "");
      if (s.state === "done" || s.state === "failed") break;
      await new Promise((r) => setTimeout(r, 500));
    }
    loadDocuments();
  } catch (error) {
    showError(error.message);
  }
});
