-- Order search (`GET /admin/orders?search=`, issue 21): a case-insensitive substring of the email (ticketing-api.md
-- "Orders", decisions.md 13 "Paging"), which the service asks of `email_key`, the email lowercased by JavaScript, with
-- the search lowercased the same way. A trigram index of email_key finds the orders holding a substring of 3 or more
-- characters without reading every order: an FTS5 table over `orders` (external content, so it stores no copy of
-- the emails, only the index), matched with the search as one quoted phrase, which is an exact substring at every
-- length from 3 (case_sensitive 1: email_key is lowercased already, and FTS5's own folding differs from
-- JavaScript's). Shorter searches have no trigram; the service reads every order for those, as before.
-- The triggers keep it in the statement that writes an order. Note: `wrangler d1 export` refuses a database that
-- holds a virtual table (docs/ordering.md "Order list and search").
CREATE VIRTUAL TABLE orders_search USING fts5(email_key, content='orders', content_rowid='id', tokenize='trigram case_sensitive 1');
--> statement-breakpoint
INSERT INTO orders_search (orders_search) VALUES ('rebuild');
--> statement-breakpoint
CREATE TRIGGER orders_search_insert AFTER INSERT ON orders
BEGIN
  INSERT INTO orders_search (rowid, email_key) VALUES (NEW.id, NEW.email_key);
END;
--> statement-breakpoint
CREATE TRIGGER orders_search_delete AFTER DELETE ON orders
BEGIN
  INSERT INTO orders_search (orders_search, rowid, email_key) VALUES ('delete', OLD.id, OLD.email_key);
END;
--> statement-breakpoint
CREATE TRIGGER orders_search_update AFTER UPDATE OF id, email_key ON orders
BEGIN
  INSERT INTO orders_search (orders_search, rowid, email_key) VALUES ('delete', OLD.id, OLD.email_key);
  INSERT INTO orders_search (rowid, email_key) VALUES (NEW.id, NEW.email_key);
END;
