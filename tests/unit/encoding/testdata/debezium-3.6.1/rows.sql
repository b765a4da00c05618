BEGIN;
INSERT INTO outbox_jsonb SELECT ('00000000-0000-4000-8000-' || lpad(i::text, 12, '0'))::uuid,
  'orders', 'order-' || (i % 7), 'OrderCreated', jsonb_build_object('n', i, 'price', 1.50 * i)
  FROM generate_series(1, 40) AS i;
COMMIT;
INSERT INTO outbox_jsonb VALUES
  ('10000000-0000-4000-8000-000000000001', 'customers', 'ключ-ü-😀', 'Unicode',
   '{"text": "héllo ✓ 😀", "esc": "a\"b\\c\n\t/", "ctl": "\u0001"}'),
  ('10000000-0000-4000-8000-000000000002', 'customers', 'c-1', 'Nested',
   '{"a": {"b": [1, 2.50, 1e3, -0, 12345678901234567890, true, null, {"c": []}]}, "z": {}}'),
  ('10000000-0000-4000-8000-000000000003', 'customers', 'c-2', 'Big',
   jsonb_build_object('blob', repeat('x', 100000))),
  ('10000000-0000-4000-8000-000000000004', 'customers', 'c-3', 'NullPayload', NULL),
  ('10000000-0000-4000-8000-000000000005', 'customers', '', 'EmptyKey', '{"k": ""}'),
  ('10000000-0000-4000-8000-000000000006', '', 'e-1', 'EmptyType', '{"t": ""}'),
  ('10000000-0000-4000-8000-000000000007', 'shipments', 's-1', 'Shipped', '"just a string"'),
  ('10000000-0000-4000-8000-000000000008', 'shipments', 's-1', 'Shipped', '[1, "two"]');
INSERT INTO outbox_text VALUES
  ('20000000-0000-4000-8000-000000000001', 'texts', 't-1', 'Json', '{"b": 1,  "a": "spaced"}'),
  ('20000000-0000-4000-8000-000000000002', 'texts', 't-1', 'Plain', 'plain text, not JSON'),
  ('20000000-0000-4000-8000-000000000003', 'texts', 't-2', 'Empty', ''),
  ('20000000-0000-4000-8000-000000000004', 'texts', 't-2', 'Null', NULL),
  ('20000000-0000-4000-8000-000000000005', 'texts', 'ü', 'Unicode', 'ünïcødé 😀 "q"');
INSERT INTO outbox_bytea VALUES
  ('30000000-0000-4000-8000-000000000001', 'bytes', 'b-1', 'Binary', '\x00ff10e282ac'),
  ('30000000-0000-4000-8000-000000000002', 'bytes', 'b-1', 'Empty', '\x'),
  ('30000000-0000-4000-8000-000000000003', 'bytes', 'b-2', 'JsonBytes', convert_to('{"j": 1}', 'UTF8')),
  ('30000000-0000-4000-8000-000000000004', 'bytes', 'b-2', 'Null', NULL);
INSERT INTO outbox_nulls VALUES
  ('40000000-0000-4000-8000-000000000001', 'nulls', NULL, 'NullAggregateId', '{"x": 1}');
INSERT INTO outbox_nulls VALUES (NULL, 'nulls', 'n-1', 'NullId', '{"x": 2}');
INSERT INTO outbox_nulls VALUES
  ('40000000-0000-4000-8000-000000000003', 'nulls', 'n-2', NULL, '{"x": 3}');
-- with_null_type: the rows below (a NULL aggregatetype, and a row after it) make Debezium's task FAIL
INSERT INTO outbox_nulls VALUES
  ('40000000-0000-4000-8000-000000000004', NULL, 'n-3', 'NullAggregateType', '{"x": 4}');
INSERT INTO outbox_nulls VALUES
  ('40000000-0000-4000-8000-000000000005', 'nulls', 'n-4', 'AfterNulls', '{"x": 5}');
