// A self-check a headless browser can read back from the DOM: images that failed to decode.
window.addEventListener("load", () => {
  const broken = [...document.images].filter(i => !i.complete || i.naturalWidth === 0).length;
  document.body.setAttribute("data-broken-images", String(broken));
  document.body.setAttribute("data-images", String(document.images.length));
});
