// The header every page shares (app/dashboard/components/header.py): the language, Copy link
// and, on a lab, Dark and Presentation. The page's state is its link, so a switch the server
// must draw anew reloads that link changed. Nothing here computes a number.
(function () {
  const nu = () => window.dash_clientside.no_update;

  function say(flags, key) {
    return ((flags && flags.messages) || {})[key] || key;
  }

  function reloadWith(name, value) {
    const q = new URLSearchParams(window.location.search);
    if (value === null) q.delete(name);
    else q.set(name, value);
    window.location.search = q.toString();
  }

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    chrome: {
      // A new language re-renders the page server-side in that language (state is in the URL).
      changeLang: function (lang, flags) {
        if (!flags || lang === flags.lang) return nu();
        reloadWith("lang", lang);
        return nu();
      },

      // A lab's Dark and Presentation: its figures are drawn on the server from the link (the
      // roofline redraws its own: its callbacks read the switches).
      labSwitch: function (theme, present) {
        const fired = ((window.dash_clientside.callback_context || {}).triggered || []).map((t) => t.prop_id);
        if (fired.some((id) => id.startsWith("lab-theme"))) reloadWith("theme", theme && theme.length ? "dark" : null);
        else if (fired.some((id) => id.startsWith("lab-present"))) reloadWith("present", present && present.length ? "1" : null);
        return nu();
      },

      // Copy the link to this view, without embed=1 (a wiki page's iframe is not the view to
      // share). Where the clipboard is blocked (a cross-origin iframe, no permission) the link
      // is shown in a field, selected for a manual copy, instead of claiming it was copied.
      copyLink: function (n, flags) {
        if (!n) return nu();
        const q = new URLSearchParams(window.location.search);
        q.delete("embed");
        q.delete("controls");
        const link = window.location.origin + window.location.pathname + "?" + q.toString();
        const clear = () => setTimeout(() => window.dash_clientside.set_props("copy-status", {children: ""}), 4000);
        const showField = function () {
          window.dash_clientside.set_props("copy-field", {value: link, style: {display: "inline-block"}});
          setTimeout(function () {
            const field = document.getElementById("copy-field");
            if (field) { field.focus(); field.select(); }
          }, 50);
          clear();
          return say(flags, "copy_blocked");
        };
        // an iframe not allowed clipboard-write: asking would log a permissions-policy violation
        const policy = document.permissionsPolicy || document.featurePolicy;
        const allowed = !policy || !policy.allowsFeature || policy.allowsFeature("clipboard-write");
        if (!(navigator.clipboard && window.isSecureContext && allowed)) return showField();
        return navigator.clipboard.writeText(link).then(function () {
          window.dash_clientside.set_props("copy-field", {style: {display: "none"}});
          clear();
          return say(flags, "copied");
        }, showField);
      },
    },
  });
})();
