CREATE TABLE IF NOT EXISTS shop_orders (
    id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email text   NOT NULL,
    cents bigint NOT NULL
);
