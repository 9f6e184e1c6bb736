// Chart images that carry their own CJK glyphs. Plotly draws a PNG by loading the chart's SVG as
// an image, where the page's web fonts do not reach: on a machine without a CJK font every
// Chinese word of an export came out as boxes. This draws the SVG with the page's subset font
// (assets/fonts, 01-variables.css) embedded in it, then the PNG from that SVG; the SVG file
// embeds it too. Nothing here computes a number.
(function () {
  const FAMILY = "Noto Sans SC subset";
  let fontData = null;

  function assetsBase() {
    const config = document.getElementById("_dash-config");
    const prefix = config ? (JSON.parse(config.textContent || "{}").requests_pathname_prefix || "/") : "/";
    return prefix + "assets/";
  }

  // the subset as base64, fetched once (the browser has it cached from the page's @font-face)
  function font() {
    if (!fontData) {
      fontData = fetch(assetsBase() + "fonts/noto-sans-sc-subset.woff2")
        .then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error("font " + r.status))))
        .then(function (buffer) {
          const bytes = new Uint8Array(buffer);
          let text = "";
          for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
          return btoa(text);
        });
    }
    return fontData;
  }

  function withFont(svg, base64) {
    const style = '<style>@font-face{font-family:"' + FAMILY + '";src:url(data:font/woff2;base64,' + base64 +
                  ') format("woff2");unicode-range:U+2E80-9FFF,U+F900-FAFF,U+FE30-FE4F,U+FF00-FFEF;}</style>';
    return svg.replace(/<svg[^>]*>/, (open) => open + style);
  }

  function save(blob, filename) {
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = filename;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  // figure: {data, layout}; opts: {format: "png" | "svg", filename (no extension), width, height}
  async function download(figure, opts) {
    const url = await window.Plotly.toImage(figure, {format: "svg", width: opts.width, height: opts.height});
    const svg = withFont(decodeURIComponent(url.slice(url.indexOf(",") + 1)), await font());
    if (opts.format === "svg") {
      save(new Blob([svg], {type: "image/svg+xml"}), opts.filename + ".svg");
      return;
    }
    const image = new Image();
    image.src = URL.createObjectURL(new Blob([svg], {type: "image/svg+xml"}));
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = opts.width;
    canvas.height = opts.height;
    canvas.getContext("2d").drawImage(image, 0, 0);
    URL.revokeObjectURL(image.src);
    const png = await new Promise((resolve) => canvas.toBlob(resolve, "image/png"));
    save(png, opts.filename + ".png");
  }

  window.llmExport = {download: download};
})();
