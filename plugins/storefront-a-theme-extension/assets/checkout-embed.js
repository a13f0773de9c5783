// Hosted checkout app embed: when the shopper checks out, read the cart token from /cart.js, ask the hosted
// checkout for a session with it, and go there. On passthrough (plan without hosted checkout), on any error
// and after 4 s the store's own checkout goes on, so a shopper is never stuck.
(function () {
  'use strict';
  var TIMEOUT_MS = 4000;
  var configEl = document.getElementById('hosted-checkout-config');
  var config;
  try {
    config = JSON.parse(configEl ? configEl.textContent : 'null');
  } catch (e) {
    config = null;
  }
  if (!config || !config.apiBase || !config.shop) return;
  var root = (window.Shopify && window.Shopify.routes && window.Shopify.routes.root) || '/';
  var busy = false;

  function nativeCheckout(form) {
    busy = false;
    if (form) {
      // Re-submit the theme's own form (with its checkout button's value) without us in the way.
      form.setAttribute('data-hosted-checkout-bypass', '1');
      var flag = document.createElement('input');
      flag.type = 'hidden';
      flag.name = 'checkout';
      flag.value = '';
      form.appendChild(flag);
      HTMLFormElement.prototype.submit.call(form);
    } else {
      window.location.assign(root + 'checkout');
    }
  }

  function takeOver(form) {
    if (busy) return;
    busy = true;
    var done = false;
    var fallback = function () {
      if (done) return;
      done = true;
      nativeCheckout(form);
    };
    var timer = setTimeout(fallback, TIMEOUT_MS);
    fetch(root + 'cart.js', { credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then(function (r) { return r.ok ? r.json() : Promise.reject(new Error('cart ' + r.status)); })
      .then(function (cart) {
        if (!cart || !cart.token || !cart.item_count) throw new Error('empty cart');
        return fetch(config.apiBase.replace(/\/+$/, '') + '/api/checkout/create', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          // The storefront's language (the block's request.locale.iso_code): the checkout page speaks it first.
          body: JSON.stringify(typeof config.locale === 'string' && config.locale
            ? { platform: 'storefront-a', shop: config.shop, cartToken: cart.token, locale: config.locale }
            : { platform: 'storefront-a', shop: config.shop, cartToken: cart.token }),
        });
      })
      .then(function (r) { return r.ok ? r.json() : Promise.reject(new Error('create ' + r.status)); })
      .then(function (answer) {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (answer && answer.checkoutUrl && !answer.passthrough) window.location.assign(answer.checkoutUrl);
        else nativeCheckout(form);
      })
      .catch(function () {
        clearTimeout(timer);
        fallback();
      });
  }

  // Capture phase and delegation: cart drawers re-render, and the theme's own handlers must not run first.
  document.addEventListener('submit', function (event) {
    var form = event.target;
    var submitter = event.submitter;
    if (!form || form.getAttribute('data-hosted-checkout-bypass')) return;
    if (!submitter || submitter.name !== 'checkout') return;
    event.preventDefault();
    event.stopImmediatePropagation();
    takeOver(form);
  }, true);
  document.addEventListener('click', function (event) {
    var link = event.target && event.target.closest ? event.target.closest('a[href]') : null;
    if (!link || !/\/checkout\/?$/.test(new URL(link.href, window.location.href).pathname)) return;
    event.preventDefault();
    takeOver(null);
  }, true);
})();
