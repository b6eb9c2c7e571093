-- Tavla schema, version 3 (PostgreSQL): see migrations/0003_reserved.sql.
SELECT 1;
