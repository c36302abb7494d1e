// Filtering and opening runs; reads text with textContent and writes no markup.
(function () {
  "use strict";
  var cases = Array.prototype.slice.call(document.querySelectorAll("details.case"));
  var filter = document.getElementById("filter");
  var failingOnly = document.getElementById("failing-only");
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
    document.querySelectorAll("details").forEach(function (d) { d.open = open; });
  }
  document.getElementById("expand").addEventListener("click", function () { setAll(true); });
  document.getElementById("collapse").addEventListener("click", function () { setAll(false); });
  function reveal(id) {
    var node = document.getElementById(id);
    for (var n = node; n; n = n.parentElement) {
      if (n.tagName === "DETAILS") { n.open = true; }
    }
    if (node) { node.scrollIntoView(); }
  }
  document.querySelectorAll("a.jump").forEach(function (a) {
    a.addEventListener("click", function () { reveal(a.getAttribute("href").slice(1)); });
  });
  if (location.hash) { reveal(location.hash.slice(1)); }
})();
