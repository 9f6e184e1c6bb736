// Keyboard access (WCAG 2.2: 2.1.1 Keyboard, 2.4.7 Focus Visible); nothing here computes a number.
//
// 1. Each chart's toolbar (Plotly's modebar, a role="toolbar" of <button>s) is one tab stop:
//    a roving tabindex puts tabindex=0 on one button (the first, or the last one used) and -1
//    on the rest; the arrow keys, Home and End move between the buttons, Enter and Space press
//    one (they are native buttons). Plotly redraws its toolbars: a MutationObserver applies
//    the tabindex again to whatever toolbar is on the page; the keys are handled by one
//    listener on the document, so a new toolbar needs no listener of its own.
// 2. Typing into a Dash 4 dropdown: the trigger button collects the first keys and opens the
//    list, then moves the focus into the list's search box one frame later. A key pressed on
//    the button and released in the search box was lost ("qwen" became "qen"). A key pressed
//    on the button while the search box is already there now goes into the search box, and a
//    key whose press the button saw and whose release it did not is typed into the search box.
(function () {
  "use strict";

  var BUTTON = ".modebar-btn";

  function toolbarButtons(bar) {
    return Array.prototype.slice.call(bar.querySelectorAll(BUTTON));
  }

  function setCurrent(bar, current) {
    toolbarButtons(bar).forEach(function (b) {
      b.tabIndex = b === current ? 0 : -1;
    });
    var title = current && current.getAttribute("data-title");
    if (title) bar.setAttribute("data-a11y-current", title);
  }

  function tidyToolbar(bar) {
    var buttons = toolbarButtons(bar);
    if (!buttons.length) return;
    var remembered = bar.getAttribute("data-a11y-current");
    var current = null;
    if (bar.contains(document.activeElement) && document.activeElement.matches(BUTTON)) {
      current = document.activeElement;
    }
    for (var i = 0; !current && remembered && i < buttons.length; i++) {
      if (buttons[i].getAttribute("data-title") === remembered) current = buttons[i];
    }
    current = current || buttons[0];
    var stops = buttons.filter(function (b) { return b.tabIndex !== -1; });
    if (stops.length === 1 && stops[0] === current) return;
    setCurrent(bar, current);
  }

  function tidyAll() {
    var bars = document.querySelectorAll(".modebar");
    for (var i = 0; i < bars.length; i++) tidyToolbar(bars[i]);
  }

  var scheduled = false;
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    window.requestAnimationFrame(function () {
      scheduled = false;
      try {
        tidyAll();
      } catch (err) {
        // a toolbar removed mid-way: the next mutation tidies again
      }
    });
  }

  document.addEventListener("keydown", function (e) {
    var button = e.target && e.target.closest ? e.target.closest(BUTTON) : null;
    var bar = button && button.closest(".modebar");
    if (!bar) return;
    var buttons = toolbarButtons(bar);
    var i = buttons.indexOf(button), next;
    if (i < 0) return;
    switch (e.key) {
      case "ArrowRight": case "ArrowDown": next = (i + 1) % buttons.length; break;
      case "ArrowLeft": case "ArrowUp": next = (i - 1 + buttons.length) % buttons.length; break;
      case "Home": next = 0; break;
      case "End": next = buttons.length - 1; break;
      default: return;
    }
    e.preventDefault();
    setCurrent(bar, buttons[next]);
    buttons[next].focus();
  });

  document.addEventListener("focusin", function (e) {
    var button = e.target && e.target.closest ? e.target.closest(BUTTON) : null;
    var bar = button && button.closest(".modebar");
    if (bar) setCurrent(bar, button);
  });

  // --- dropdowns -------------------------------------------------------------------------
  var TRIGGER = "button.dash-dropdown";
  var SEARCH = "input.dash-dropdown-search";
  var pressedOnTrigger = {};  // key code -> the dropdown's wrapper, for keys the button saw go down

  function printable(e) {
    return e.key && e.key.length === 1 && e.key !== " " && !e.ctrlKey && !e.metaKey && !e.altKey && !e.isComposing;
  }

  function typeInto(input, text) {
    var setter = Object.getOwnPropertyDescriptor(window.HTMLInputElement.prototype, "value").set;
    setter.call(input, input.value + text);
    input.dispatchEvent(new Event("input", {bubbles: true}));
  }

  document.addEventListener("keydown", function (e) {
    var trigger = e.target && e.target.closest ? e.target.closest(TRIGGER) : null;
    if (!trigger || !printable(e)) return;
    var wrapper = trigger.closest(".dash-dropdown-wrapper");
    var search = wrapper && wrapper.querySelector(SEARCH);
    if (search) {
      // the list is open: the key's own character goes into the search box
      search.focus();
      var end = search.value.length;
      try { search.setSelectionRange(end, end); } catch (err) { /* not a text box */ }
    } else if (wrapper) {
      pressedOnTrigger[e.code || e.key] = wrapper;
    }
  }, true);

  document.addEventListener("keyup", function (e) {
    var code = e.code || e.key;
    var wrapper = pressedOnTrigger[code];
    if (!wrapper) return;
    delete pressedOnTrigger[code];
    if (!printable(e) || (e.target && e.target.closest && e.target.closest(TRIGGER))) return;  // Dash's own
    var search = e.target && e.target.matches && e.target.matches(SEARCH) ? e.target : wrapper.querySelector(SEARCH);
    if (search && wrapper.contains(search)) typeInto(search, e.key);
  }, true);

  function start() {
    tidyAll();
    if (window.MutationObserver && document.body) {
      new MutationObserver(schedule).observe(document.body, {childList: true, subtree: true});
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
