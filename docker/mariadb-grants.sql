-- The pods create the tenant databases themselves (cairn_t_<tenant>, cairn_shared) next to the meta DB.
GRANT ALL PRIVILEGES ON `cairn%`.* TO 'cairn'@'%';
FLUSH PRIVILEGES;
