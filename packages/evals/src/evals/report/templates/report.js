// Filtering, opening runs, and rendering a case or a run only when it is opened: each
// keeps its content in an inert <template class="lazy"> until then, so a page of 20,000
// runs paints its summary at once. Reads text with textContent and writes no markup.
(function () {
  "use strict";
  var cases = Array.prototype.slice.call(document.querySelectorAll("details.case"));
  var filter = document.getElementById("filter");
  var failingOnly = document.getElementById("failing-only");
  function expand(details) {
    var kept = details.querySelector(":scope > template.lazy");
    if (kept) {
      details.appendChild(kept.content.cloneNode(true));
      kept.remove();
    }
  }
  document.addEventListener("toggle", function (event) {
    if (event.target.tagName === "DETAILS" && event.target.open) { expand(event.target); }
  }, true);
  function apply() {
    var needle = filter.value.toLowerCase();
    cases.forEach(function (c) {
      var text = c.querySelector("summary").textContent.toLowerCase();
      var hide = (needle && text.indexOf(needle) < 0) ||
        (failingOnly.checked && c.getAttribute("data-status") !== "fail");
      c.classList.toggle("hidden", Boolean(hide));
    });
  }
  filter.addEventListener("input", apply);
  failingOnly.addEventListener("change", apply);
  function setAll(open) {
    if (open) {
      var kept = document.querySelectorAll("template.lazy");
      while (kept.length) {
        kept.forEach(function (t) { expand(t.parentElement); });
        kept = document.querySelectorAll("template.lazy");
      }
    }
    document.querySelectorAll("details").forEach(function (d) { d.open = open; });
  }
  document.getElementById("expand").addEventListener("click", function () { setAll(true); });
  document.getElementById("collapse").addEventListener("click", function () { setAll(false); });
  function holds(template, id) {
    // The element is in this template, or in a template inside it (a run in its case).
    if (template.content.getElementById(id)) { return true; }
    return Array.prototype.some.call(
      template.content.querySelectorAll("template.lazy"),
      function (inner) { return holds(inner, id); }
    );
  }
  function find(id) {
    // An element not rendered yet is in the template of a case or run: render that first.
    for (var depth = 0; depth < 3; depth++) {
      var node = document.getElementById(id);
      if (node) { return node; }
      var holder = Array.prototype.find.call(
        document.querySelectorAll("template.lazy"),
        function (t) { return holds(t, id); }
      );
      if (!holder) { return null; }
      expand(holder.parentElement);
    }
    return document.getElementById(id);
  }
  function reveal(id) {
    var node = find(id);
    for (var n = node; n; n = n.parentElement) {
      if (n.tagName === "DETAILS") { expand(n); n.open = true; }
    }
    if (node) { node.scrollIntoView(); }
  }
  document.addEventListener("click", function (event) {
    var link = event.target.closest("a.jump");
    if (link) { reveal(link.getAttribute("href").slice(1)); }
  });
  if (location.hash) { reveal(location.hash.slice(1)); }
})();
