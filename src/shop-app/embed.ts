// /ticketing/v1/shop/embed.js (decisions.md 15 "Embedding"): turns each `<div data-ticketing-event="<id>">` of the
// organiser's page into the shop of that event in an iframe that sizes itself to its content.
