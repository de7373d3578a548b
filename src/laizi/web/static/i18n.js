// Every text the client shows, in Chinese and English. t(key, ...args) picks the current language.

const TEXT = {
  title: ["癞子麻将", "laizi mahjong"],
  lobby: ["大厅", "Lobby"],
  your_name: ["昵称", "Your name"],
  guest: ["游客", "guest"],
  create_room: ["开房", "Create a room"],
  create: ["创建", "Create"],
  preset: ["玩法", "Preset"],
  rules: ["规则设置", "Rules"],
  table_settings: ["牌桌设置", "Table"],
  default_is: ["默认", "default"],
  yes: ["是", "yes"],
  no: ["否", "no"],
  join_room: ["加入房间", "Join a room"],
  room_code: ["房间号", "Room code"],
  join: ["加入", "Join"],
  spectate: ["旁观", "Watch"],
  reset: ["恢复默认", "Reset to defaults"],
  room: ["房间", "Room"],
  link: ["链接", "Link"],
  waiting: ["等待玩家…", "Waiting for players…"],
  start_note: ["人到齐后开局，空位由机器人补上。", "The match starts when the people are seated; bots take the other seats."],
  seat: ["座位", "seat"],
  dealer: ["庄", "dealer"],
  you: ["你", "you"],
  bot: ["机器人", "bot"],
  empty: ["空位", "empty"],
  offline: ["掉线", "offline"],
  auto: ["托管", "auto-play"],
  auto_on: ["取消托管", "Stop auto-play"],
  auto_off: ["托管", "Auto-play"],
  tiles_left: ["剩余", "Tiles left"],
  live_left: ["可摸", "live"],
  indicator: ["翻牌", "Indicator"],
  laizi: ["癞子", "Laizi"],
  pi: ["癞子皮", "Pi"],
  must_gang: ["必杠", "Must-gang"],
  hand_no: ["第 {0} 局", "Hand {0}"],
  of_hands: ["共 {0} 局", "of {0}"],
  turn_of: ["{0} 出牌", "{0} to play"],
  your_turn: ["轮到你", "Your turn"],
  your_claim: ["可以吃碰杠胡", "You may claim"],
  seconds: ["{0} 秒", "{0} s"],
  bank: ["时间库 {0} 秒", "bank {0} s"],
  multiplier: ["番数", "Multiplier"],
  no_factors: ["无番", "no factors"],
  reconnecting: ["连接中断，正在重连…", "Connection lost — reconnecting…"],
  connected: ["已连接", "Connected"],
  discard_hint: ["点一张牌打出", "Click a tile to discard it"],
  a_discard: ["打 {0}", "discard {0}"],
  act_win: ["胡", "Win"],
  act_self_draw: ["自摸", "Win (self-drawn)"],
  act_pass: ["过", "Pass"],
  act_pung: ["碰", "Pung"],
  act_kong: ["杠", "Kong"],
  act_chow: ["吃", "Chow"],
  act_lay_out: ["杠出", "Lay out"],
  act_concealed_kong: ["暗杠", "Concealed kong"],
  act_added_kong: ["蓄杠", "Add to pung"],
  act_declare_ready: ["报听", "Declare ready"],
  act_discard: ["打出", "Discard"],
  leave: ["离开", "Leave"],
  leave_confirm: ["对局中离开算逃跑，要扣分。确定？", "Leaving during a match is an escape and costs the penalty. Leave?"],
  settlement: ["结算", "Settlement"],
  drawn_hand: ["荒庄（流局）：不计分", "Drawn hand (荒庄): nobody pays"],
  escaped: ["{0} 逃跑", "{0} escaped"],
  win_by: ["{0} 胡牌", "{0} wins"],
  how_self_draw: ["自摸", "self-drawn"],
  how_discard: ["{0} 放冲", "on {0}'s discard"],
  how_rob_kong: ["抢 {0} 的杠", "robbing {0}'s kong"],
  hard: ["硬胡", "hard"],
  soft: ["软胡", "soft"],
  base: ["基础分", "base"],
  player: ["玩家", "Player"],
  factors: ["番", "Factors"],
  before_caps: ["封顶前", "Before caps"],
  after_caps: ["封顶后", "After caps"],
  contract: ["承包", "Contract"],
  final: ["得分", "Points"],
  total: ["累计", "Total"],
  winner: ["赢方", "winner"],
  loser: ["输方", "loser"],
  no_cap: ["—", "—"],
  contract_pays: ["{0} 一家付 {1}", "{0} alone pays {1}"],
  seed: ["种子（牌墙）", "Seed (the wall)"],
  commitment: ["承诺（开局前公布的 SHA-256）", "Commitment (SHA-256 shown before the deal)"],
  seed_ok: ["✓ 种子与承诺相符：牌墙没有被安排", "✓ the seed matches the commitment: the wall was not arranged"],
  seed_bad: ["✗ 种子与承诺不符！", "✗ the seed does NOT match the commitment!"],
  my_entropy: ["你的随机数", "your random value"],
  entropy_ok: ["✓ 已计入本局牌墙", "✓ is in this deal"],
  entropy_bad: ["✗ 本局牌墙没有用到它！", "✗ is NOT in this deal!"],
  verify_hint: ["自己验证：下载记录，运行", "Check it yourself: download the record and run"],
  download_record: ["下载记录", "Download the record"],
  replay: ["回放", "Replay"],
  next_hand: ["下一局马上开始", "The next hand starts shortly"],
  close: ["关闭", "Close"],
  match_over: ["对局结束", "Match over"],
  back_lobby: ["回大厅", "Back to the lobby"],
  first: ["« 开始", "« Start"],
  prev: ["◀ 上一步", "◀ Back"],
  next: ["下一步 ▶", "Forward ▶"],
  last: ["结束 »", "End »"],
  step: ["第 {0}/{1} 步", "step {0}/{1}"],
  replay_of: ["房间 {0} 第 {1} 局回放", "Room {0}, hand {1} — replay"],
  past_hands: ["本房间已完成的牌局", "Finished hands of this room"],
  error: ["错误", "Error"],
  login: ["登录", "Log in"],
  register: ["注册", "Register"],
  logout: ["退出", "Log out"],
  password: ["密码", "Password"],
  logged_in_as: ["已登录：{0}", "Logged in as {0}"],
  playing_as_guest: ["游客身份", "Playing as a guest"],
  leaderboard: ["排行榜", "Leaderboard"],
  rank: ["段位", "Rank"],
  points: ["积分", "Points"],
  rating: ["等级分", "Rating"],
  my_matches: ["我的对局", "My past matches"],
  open_rooms: ["开放的房间", "Open rooms"],
  no_accounts: ["本服务器没有账号功能：以游客身份玩。", "This server has no accounts: you play as a guest."],
  none_yet: ["暂无", "none yet"],
  none: ["无", "none"],
  kongs: ["杠分", "Kongs"],
  fans: ["番", "Fans"],
  fans_total: ["{0} 番", "{0} fans"],
  matches: ["场次", "Matches"],
  place: ["第 {0} 名", "place {0}"],
  to_next: ["距{0}还差 {1}", "{1} to {0}"],
  lang_switch: ["English", "中文"],
  phase_claim: ["等待吃碰杠胡", "claims"],
  phase_final: ["海底", "last tiles (海底)"],
  match_totals: ["总分", "Match totals"],
  hands_played: ["已打 {0} 局", "{0} hand(s) played"],
  concealed_kong_hidden: ["暗杠", "concealed kong"],
};

export const FACTOR_NAMES = {
  opened: ["开口", "opened"],
  exposed_kong: ["明杠", "exposed kong"],
  concealed_kong: ["暗杠", "concealed kong"],
  hongzhong_gang: ["红中杠", "red dragon laid out"],
  facai_gang: ["发财杠", "green dragon laid out"],
  pi_gang: ["癞子皮杠", "pi laid out"],
  laizi_gang: ["癞子杠", "laizi laid out"],
  self_draw: ["自摸", "self-drawn"],
  hard: ["硬胡", "hard"],
  discarder: ["放冲", "discarder"],
  robbed: ["被抢杠", "kong robbed"],
  dealer: ["坐庄", "dealer"],
  dealer_won: ["庄家胡", "dealer won"],
};

export const FAN_NAMES = {
  baoting: ["报听", "declared ready"],
  pengpenghu: ["碰碰胡", "all triplets"],
  limen: ["立门", "concealed"],
  dianpao: ["点炮", "discarder"],
  zimo: ["自摸", "self-drawn"],
  zuozhuang: ["坐庄", "dealer"],
  hunyise: ["混一色", "one suit and honors"],
  shoubayi: ["手把一", "one tile left"],
  ganghoukai: ["杠后开", "after a kong"],
  yibangao: ["一般高", "two identical sequences"],
  siguiyi: ["四归一", "four of a kind, not konged"],
  qingyise: ["清一色", "one suit"],
  sanhuatongshun: ["三花同顺", "three identical sequences"],
  sanjiaqing: ["三家清", "three others concealed"],
  sijiaqing: ["四家清", "nobody opened"],
  qidui: ["七对", "seven pairs"],
  shisanyao: ["十三幺", "thirteen orphans"],
};

export const WIN_NAMES = {
  pinghu: ["平胡", "standard hand"],
  piaohu: ["飘胡", "all triplets"],
  qidui: ["七对", "seven pairs"],
  shisanyao: ["十三幺", "thirteen orphans"],
  small: ["小胡", "small win"],
  pengpenghu: ["碰碰胡", "all pungs"],
  qingyise: ["清一色", "one suit"],
  fengyise: ["风一色", "all honors"],
  jiangyise: ["将一色", "all 2-5-8"],
  quanqiuren: ["全求人", "all from others"],
  haidilao: ["海底捞", "last-tiles draw"],
  gangshanghua: ["杠上花", "win on a kong's replacement"],
  qiangganghu: ["抢杠", "robbing a kong"],
};

export const CAP_NAMES = {
  cap: ["封顶", "cap"],
  golden: ["金顶", "golden cap"],
  sunshine: ["阳光顶", "sunshine cap"],
  three_suns: ["三阳开泰", "three suns"],
};

export const CONTRACT_NAMES = {
  qiangganghu: ["抢杠承包", "robbed kong"],
  quanqiuren: ["全求人承包（放冲者未听牌）", "all-from-others, discarder not ready"],
  sanjubao: ["三句包（清一色第三口）", "one suit, third opening"],
};

// The names of settings, presets, games and their choices come with the server's settings schema
// (GET /api/settings/schema), not from here.

let lang = localStorage.getItem("laizi.lang") || (navigator.language.startsWith("zh") ? "zh" : "en");

export function getLang() {
  return lang;
}

export function setLang(value) {
  lang = value === "en" ? "en" : "zh";
  localStorage.setItem("laizi.lang", lang);
  document.documentElement.lang = lang === "zh" ? "zh-Hans" : "en";
}

/** One of a [zh, en] pair. */
export function pick(pair) {
  if (!pair) return "";
  return lang === "zh" ? pair[0] : pair[1];
}

/** The text `key` in the current language, with {0}, {1} … filled in. */
export function t(key, ...args) {
  const pair = TEXT[key];
  let text = pair ? pick(pair) : key;
  args.forEach((arg, i) => {
    text = text.replace(`{${i}}`, String(arg));
  });
  return text;
}

/** A name from one of the tables above, or the key itself. */
export function named(table, key) {
  return table[key] ? pick(table[key]) : key;
}

setLang(lang);
