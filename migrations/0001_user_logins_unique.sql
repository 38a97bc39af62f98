-- Usernames and emails share one namespace: a user signs in with either, so neither may equal another
-- user's username or email (case-insensitively). The unique indexes cover each column; these triggers cover
-- the cross pairs, inside the same statement that writes, so concurrent writes cannot slip past a read.
CREATE TRIGGER users_login_unique_insert BEFORE INSERT ON users
WHEN EXISTS (
  SELECT 1 FROM users
  WHERE (NEW.email <> '' AND lower(username) = lower(NEW.email))
     OR (email <> '' AND lower(email) = lower(NEW.username))
)
BEGIN
  SELECT RAISE(ABORT, 'UNIQUE constraint failed: users.login');
END;
--> statement-breakpoint
CREATE TRIGGER users_login_unique_update BEFORE UPDATE OF username, email ON users
WHEN EXISTS (
  SELECT 1 FROM users
  WHERE id <> NEW.id
    AND ((NEW.email <> '' AND lower(username) = lower(NEW.email))
      OR (email <> '' AND lower(email) = lower(NEW.username)))
)
BEGIN
  SELECT RAISE(ABORT, 'UNIQUE constraint failed: users.login');
END;
