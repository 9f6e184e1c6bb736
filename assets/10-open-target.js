// A link to a box inside a closed section (the One request card's "Open Serving: output
// tokens") opens that section, scrolls the box into view and focuses it. Chrome expands a
// closed <details> on a fragment navigation only in some versions, and the page's address
// must keep its query without a fragment: the click is handled here, not by the browser.
(function () {
  "use strict";

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a.request-open");
    if (!link) return;
    var target = document.getElementById((link.getAttribute("href") || "").slice(1));
    if (!target) return;
    event.preventDefault();
    for (var d = target.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) {
      d.open = true;
    }
    target.scrollIntoView({block: "center"});
    target.focus();
  });
})();
