// The one script of the box-office pages (decisions.md 15): bundled by scripts/build-door-app.mjs into
// /ticketing/v1/shop/assets/shop.js and loaded as a module by every page; it runs the part of the page named by
// `<body data-page>`. Everything works without it (form posts, a refresh link); it only adds to a page.
import { reportFrameHeight } from "./frame-height";
import { refreshOrderPage } from "./order-page";
import { startShopPage } from "./shop-page";

const page = document.body.dataset.page;
if (page === "shop") {
  // The shop page: live totals, inline checks, errors without a full reload.
  startShopPage();
} else if (page === "order") {
  // The order page: refreshes itself while something is pending.
  refreshOrderPage();
}
// Every page inside an organiser's iframe (embed.js) keeps the frame as tall as itself.
reportFrameHeight();
