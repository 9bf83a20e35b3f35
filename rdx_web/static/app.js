// rdx serve: the only script. Search as you type (the results come from /results as HTML made
// by the server, the URL keeps the query) and a revision check that marks stale pages.
"use strict";
(function () {
  const form = document.getElementById("search");
  const results = document.getElementById("results");
  let timer = null;
  let sent = 0;

  function query() {
    const params = new URLSearchParams();
    for (const [key, value] of new FormData(form)) {
      if (value !== "" && !(key === "mode" && value === "all")) params.append(key, value);
    }
    return params.toString();
  }

  async function refresh() {
    const q = query();
    const ticket = ++sent;
    history.replaceState(null, "", q ? "/?" + q : "/");
    const response = await fetch("/results?" + q, { headers: { "Accept": "text/html" } });
    const html = await response.text();
    if (ticket !== sent) return; // An older answer arrived after a newer one was asked for.
    const doc = new DOMParser().parseFromString(html, "text/html");
    const fresh = doc.querySelector(".results");
    if (fresh) {
      results.replaceChildren(document.adoptNode(fresh));
    } else {
      const message = doc.querySelector(".message");
      const p = document.createElement("p");
      p.className = "error-inline";
      p.textContent = message ? message.textContent : "the search failed (" + response.status + ")";
      results.replaceChildren(p);
    }
  }

  if (form && results) {
    form.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(refresh, 150);
    });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      clearTimeout(timer);
      refresh();
    });
  }

  // Revision check: every few seconds ask /api/status; when the graph moved on, the file view
  // reloads itself (keeping its #L anchor), search results are fetched again, other pages say so.
  const shown = document.body.dataset.revision;
  const page = document.body.dataset.page;
  function current() {
    if (page !== "search" || !results) return shown;
    const r = results.querySelector(".results");
    return r ? r.dataset.revision : "";
  }
  async function check() {
    const mine = current();
    if (!mine) return; // Nothing shown comes from a revision (an empty search, an error).
    try {
      const response = await fetch("/api/status");
      if (!response.ok) return;
      const status = await response.json();
      if (status.revision === undefined || String(status.revision) === mine) return;
      if (page === "file") {
        location.reload();
      } else if (page === "search" && form) {
        refresh();
      } else {
        document.getElementById("stale").hidden = false;
      }
    } catch (e) {
      // The server stopped: leave the page as it is.
    }
  }
  setInterval(check, 1500);
  const reload = document.getElementById("stale-reload");
  if (reload) reload.addEventListener("click", function (event) { event.preventDefault(); location.reload(); });
})();
