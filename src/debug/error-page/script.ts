/**
 * The error page's inline scripts. Without JavaScript every panel is shown one after the other and
 * the tab bar is a list of in-page links; the scripts only add tab switching, the theme toggle, log
 * filters and copy buttons. They never read page content into HTML (textContent only).
 */

/** Storage key of the reader's theme choice ('light' | 'dark'; absent = follow the system). */
export const THEME_KEY = 'irms-web/debug/theme';

/** In <head>: marks JS as available and applies a stored theme before the first paint. */
export const HEAD_SCRIPT = `(function () {
  var root = document.documentElement;
  root.className = root.className.replace(/\\bno-js\\b/, 'js');
  try {
    var theme = window.localStorage.getItem('${THEME_KEY}');
    if (theme === 'light' || theme === 'dark') root.setAttribute('data-theme', theme);
  } catch (e) {}
})();`;

/** At the end of <body>: tabs, hierarchy links, log filters, copy buttons, theme toggle. */
export const BODY_SCRIPT = `(function () {
  var doc = document, root = doc.documentElement;
  var tabs = Array.prototype.slice.call(doc.querySelectorAll('.tabs [data-tab]'));
  var panels = Array.prototype.slice.call(doc.querySelectorAll('.tab-panel'));

  function show(id, focus) {
    var found = false;
    tabs.forEach(function (tab) {
      var on = tab.getAttribute('data-tab') === id;
      if (on) found = true;
      tab.setAttribute('aria-selected', on ? 'true' : 'false');
      tab.setAttribute('tabindex', on ? '0' : '-1');
      if (on && focus) tab.focus();
    });
    if (!found) return false;
    panels.forEach(function (panel) { panel.classList.toggle('active', panel.id === id); });
    return true;
  }

  tabs.forEach(function (tab, i) {
    tab.addEventListener('click', function (event) {
      event.preventDefault();
      var id = tab.getAttribute('data-tab');
      show(id, false);
      try { history.replaceState(null, '', '#' + id); } catch (e) {}
    });
    tab.addEventListener('keydown', function (event) {
      var next = event.key === 'ArrowRight' ? i + 1 : event.key === 'ArrowLeft' ? i - 1 : -2;
      if (next === -2) return;
      event.preventDefault();
      var target = tabs[(next + tabs.length) % tabs.length];
      show(target.getAttribute('data-tab'), true);
    });
  });

  function openTraceBox(hash) {
    var box = hash && hash.indexOf('#trace-box-') === 0 ? doc.getElementById(hash.slice(1)) : null;
    if (!box) return false;
    show('tab-exceptions', false);
    box.open = true;
    box.scrollIntoView({ block: 'start' });
    return true;
  }

  Array.prototype.forEach.call(doc.querySelectorAll('a[href^="#trace-box-"]'), function (link) {
    link.addEventListener('click', function (event) {
      if (openTraceBox(link.getAttribute('href'))) event.preventDefault();
    });
  });

  // The tab (or trace box) a fragment names; false when it names neither.
  function route(hash) {
    return openTraceBox(hash) || !!(hash && show(hash.slice(1), false));
  }
  if (!route(window.location.hash)) show(tabs.length ? tabs[0].getAttribute('data-tab') : '', false);
  // Back/Forward and an edited #fragment navigate within the page without reloading it: without
  // this the URL named one tab while another stayed shown.
  window.addEventListener('hashchange', function () { route(window.location.hash); });

  var filters = Array.prototype.slice.call(doc.querySelectorAll('.log-filters [data-min-level]'));
  var rows = Array.prototype.slice.call(doc.querySelectorAll('table.logs tbody tr'));
  var count = doc.querySelector('.log-count');
  function filter(min) {
    var shown = 0;
    rows.forEach(function (row) {
      var visible = Number(row.getAttribute('data-level')) >= min;
      row.classList.toggle('hidden', !visible);
      if (visible) shown++;
    });
    filters.forEach(function (b) { b.setAttribute('aria-pressed', Number(b.getAttribute('data-min-level')) === min ? 'true' : 'false'); });
    if (count) count.textContent = shown + ' of ' + rows.length + ' shown';
  }
  filters.forEach(function (b) { b.addEventListener('click', function () { filter(Number(b.getAttribute('data-min-level'))); }); });
  if (filters.length) filter(0);

  Array.prototype.forEach.call(doc.querySelectorAll('.copy[data-copy]'), function (button) {
    // The label read once, and one feedback timer: a second click within the feedback read the label
    // "Copied" and restored that, so the button said "Copied" for good.
    var label = button.textContent, timer = 0;
    button.addEventListener('click', function () {
      var source = doc.getElementById(button.getAttribute('data-copy'));
      if (!source) return;
      var text = source.textContent || '';
      var done = function () { button.textContent = 'Copied'; clearTimeout(timer); timer = setTimeout(function () { button.textContent = label; }, 1200); };
      // Without the Clipboard API (a page over plain HTTP from another host than localhost is no
      // secure context) or without its permission: the selection, copied by execCommand, which
      // works there; the text stays selected for Ctrl+C should that fail too.
      var fallback = function () {
        var range = doc.createRange(); range.selectNodeContents(source);
        var sel = window.getSelection(); if (sel) { sel.removeAllRanges(); sel.addRange(range); }
        try { if (doc.execCommand('copy')) done(); } catch (e) {}
      };
      try {
        if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, fallback);
        else fallback();
      } catch (e) { fallback(); }
    });
  });

  var toggle = doc.querySelector('.theme-toggle');
  function effectiveTheme() {
    var chosen = root.getAttribute('data-theme');
    if (chosen) return chosen;
    return window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  }
  function label() {
    if (!toggle) return;
    var next = effectiveTheme() === 'dark' ? 'light' : 'dark';
    toggle.setAttribute('aria-label', 'Switch to the ' + next + ' theme');
    toggle.setAttribute('title', 'Switch to the ' + next + ' theme');
    var text = toggle.querySelector('.theme-label');
    if (text) text.textContent = next === 'dark' ? 'Dark' : 'Light';
  }
  if (toggle) {
    toggle.addEventListener('click', function () {
      var next = effectiveTheme() === 'dark' ? 'light' : 'dark';
      root.setAttribute('data-theme', next);
      try { window.localStorage.setItem('${THEME_KEY}', next); } catch (e) {}
      label();
    });
    label();
  }
})();`;
