-- A region's allowance of a fixed window that is one quota across regions (docs/adr/0025-one-quota-across-regions.md):
-- the value of `<rule key>:al`, which includes/fixed_window.lua reads (and writes its denials into) and
-- region-allowance.lua reads and moves. `<window start - EPOCH>:<allowance>:<denials>:<generation>`: the generation
-- counts the coordinator's writes, so that a call of its that arrives late (after another was answered) changes nothing.
-- Needs common (EPOCH, min).

-- The allowance, denials and generation `stored` holds for the window that starts at `start`; else the region's
-- `share`, 0 and 0. Never above the limit.
local function allowanceOf(stored, start, limit, share)
  if stored then
    local at, allowance, denied, generation = string.match(stored, '^(-?%d+):(%d+):(%d+):(%d+)$')
    if at and at + EPOCH == start then return min(allowance + 0, limit), denied + 0, generation + 0 end
  end
  return min(share, limit), 0, 0
end

-- The value of an allowance (see above).
local function allowanceText(start, allowance, denied, generation)
  return string.format('%d:%d:%d:%d', start - EPOCH, allowance, denied, generation)
end
