-- Each web process keeps the API keys it verified in memory (server/access/key-cache.ts) and drops
-- them when anything auth reads with a key changes: a key's revocation, scopes, version or limit;
-- its owner's suspension or platform role; a membership; a tenant's team. These statement-level
-- triggers tell every process at the change's commit, on the `auth_changes` channel (the payload
-- is the table's name). A process trusts its cache only while it is listening.
CREATE FUNCTION "notify_auth_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changes', TG_TABLE_NAME);
  RETURN NULL;
END;
$$;

CREATE TRIGGER "api_keys_auth_change"
    AFTER UPDATE OR DELETE ON "api_keys"
    FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_change"();
CREATE TRIGGER "api_keys_auth_truncate"
    AFTER TRUNCATE ON "api_keys"
    FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_change"();

CREATE TRIGGER "users_auth_change"
    AFTER UPDATE OF "suspended_at", "platform_role", "id" OR DELETE ON "users"
    FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_change"();
CREATE TRIGGER "users_auth_truncate"
    AFTER TRUNCATE ON "users"
    FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_change"();

CREATE TRIGGER "team_members_auth_change"
    AFTER INSERT OR UPDATE OR DELETE ON "team_members"
    FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_change"();
CREATE TRIGGER "team_members_auth_truncate"
    AFTER TRUNCATE ON "team_members"
    FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_change"();

CREATE TRIGGER "tenants_auth_change"
    AFTER UPDATE OF "team_id", "id" OR DELETE ON "tenants"
    FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_change"();
CREATE TRIGGER "tenants_auth_truncate"
    AFTER TRUNCATE ON "tenants"
    FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_change"();
