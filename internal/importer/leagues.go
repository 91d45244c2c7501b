package importer

import "github.com/footdata/footballd/pkg/model"

// openfootballLeagues maps openfootball file names (en.1.json) to league
// codes. Codes outside the spec's appendix come with the description the
// importer registers as an editor-added league the first time it meets them.
var openfootballLeagues = map[string]model.League{
	"en.1":     {Code: "PL"},
	"en.2":     {Code: "ELC"},
	"en.3":     {Code: "EL1"},
	"en.4":     {Code: "EL2", Name: "League Two", Country: "England", Zone: "Europe/London"},
	"de.1":     {Code: "BL1"},
	"de.2":     {Code: "BL2"},
	"de.3":     {Code: "BL3"},
	"de.cup":   {Code: "DFB"},
	"es.1":     {Code: "PD"},
	"es.2":     {Code: "SD"},
	"it.1":     {Code: "SA"},
	"it.2":     {Code: "SB"},
	"fr.1":     {Code: "FL1"},
	"fr.2":     {Code: "FL2"},
	"nl.1":     {Code: "DED"},
	"pt.1":     {Code: "PPL"},
	"gr.1":     {Code: "GSL"},
	"uefa.cl":  {Code: "CL"},
	"worldcup": {Code: "WC"},
	"euro":     {Code: "EC"},
	"at.1":     {Code: "ABL", Name: "Bundesliga", Country: "Austria", Zone: "Europe/Vienna"},
	"at.2":     {Code: "AT2", Name: "2. Liga", Country: "Austria", Zone: "Europe/Vienna"},
	"at.cup":   {Code: "OFB", Name: "ÖFB-Cup", Country: "Austria", Zone: "Europe/Vienna"},
	"be.1":     {Code: "BJL", Name: "First Division A", Country: "Belgium", Zone: "Europe/Brussels"},
	"ch.1":     {Code: "SSL", Name: "Super League", Country: "Switzerland", Zone: "Europe/Zurich"},
	"ch.2":     {Code: "SCL", Name: "Challenge League", Country: "Switzerland", Zone: "Europe/Zurich"},
	"cz.1":     {Code: "CFL", Name: "First League", Country: "Czech Republic", Zone: "Europe/Prague"},
	"hu.1":     {Code: "NB1", Name: "NB I", Country: "Hungary", Zone: "Europe/Budapest"},
	"ru.1":     {Code: "RPL", Name: "Premier League", Country: "Russia", Zone: "Europe/Moscow"},
	"ru.2":     {Code: "RFN", Name: "First League", Country: "Russia", Zone: "Europe/Moscow"},
	"sco.1":    {Code: "SPL", Name: "Premiership", Country: "Scotland", Zone: "Europe/London"},
	"tr.1":     {Code: "TSL", Name: "Süper Lig", Country: "Turkey", Zone: "Europe/Istanbul"},
	"tr.2":     {Code: "TR2", Name: "1. Lig", Country: "Turkey", Zone: "Europe/Istanbul"},
	"ar.1":     {Code: "ARL", Name: "Liga Profesional", Country: "Argentina", Zone: "America/Argentina/Buenos_Aires"},
	"br.1":     {Code: "BSA", Name: "Série A", Country: "Brazil", Zone: "America/Sao_Paulo"},
	"br.2":     {Code: "BSB", Name: "Série B", Country: "Brazil", Zone: "America/Sao_Paulo"},
	"mx.1":     {Code: "LMX", Name: "Liga MX", Country: "Mexico", Zone: "America/Mexico_City"},
	"au.1":     {Code: "ALM", Name: "A-League", Country: "Australia", Zone: "Australia/Sydney"},
	"cn.1":     {Code: "CSL", Name: "Super League", Country: "China", Zone: "Asia/Shanghai"},
	"jp.1":     {Code: "JJL", Name: "J1 League", Country: "Japan", Zone: "Asia/Tokyo"},
	"co.1":     {Code: "COL", Name: "Primera A", Country: "Colombia", Zone: "America/Bogota"},
	"mls":      {Code: "MLS", Name: "Major League Soccer", Country: "USA", Zone: "America/New_York"},
	"copa.l":   {Code: "CLI", Name: "Copa Libertadores", Country: "South America", Zone: "America/Sao_Paulo"},
	"dz.1":     {Code: "DZ1", Name: "Ligue 1", Country: "Algeria", Zone: "Africa/Algiers"},
	"eg.1":     {Code: "EPL", Name: "Premier League", Country: "Egypt", Zone: "Africa/Cairo"},
	"ma.1":     {Code: "BOT", Name: "Botola Pro", Country: "Morocco", Zone: "Africa/Casablanca"},
}

// awardedWinners holds awarded results whose stored score does not say who
// got the points (a 0-0 "awarded" line), keyed by league, season and the
// normalised names of the home and away teams.
// Facts from the published tables.
var awardedWinners = map[string]model.Side{
	// Ligue 1 2016-17: the match was abandoned; Lyon were awarded the win.
	"FL1/2016/bastia/olympique lyonnais": model.Away,
}

// describedLeagues describe the league codes beyond the spec's appendix
// that the CSV formats use, as the other formats describe them (the same
// codes as engsoccerdata's and openfootball's for the same leagues).
var describedLeagues = map[model.LeagueCode]model.League{
	"EL2": {Code: "EL2", Name: "League Two", Country: "England", Zone: london},
	"ENL": {Code: "ENL", Name: "National League", Country: "England", Zone: london},
	"SPL": {Code: "SPL", Name: "Premiership", Country: "Scotland", Zone: london},
	"SCH": {Code: "SCH", Name: "Championship", Country: "Scotland", Zone: london},
	"SL1": {Code: "SL1", Name: "League One", Country: "Scotland", Zone: london},
	"SL2": {Code: "SL2", Name: "League Two", Country: "Scotland", Zone: london},
	"BJL": {Code: "BJL", Name: "First Division A", Country: "Belgium", Zone: "Europe/Brussels"},
	"TSL": {Code: "TSL", Name: "Süper Lig", Country: "Turkey", Zone: "Europe/Istanbul"},
	"ABL": {Code: "ABL", Name: "Bundesliga", Country: "Austria", Zone: "Europe/Vienna"},
	"SSL": {Code: "SSL", Name: "Super League", Country: "Switzerland", Zone: "Europe/Zurich"},
	"RPL": {Code: "RPL", Name: "Premier League", Country: "Russia", Zone: "Europe/Moscow"},
	"ARL": {Code: "ARL", Name: "Liga Profesional", Country: "Argentina", Zone: "America/Argentina/Buenos_Aires"},
	"BSA": {Code: "BSA", Name: "Série A", Country: "Brazil", Zone: "America/Sao_Paulo"},
	"LMX": {Code: "LMX", Name: "Liga MX", Country: "Mexico", Zone: "America/Mexico_City"},
	"CSL": {Code: "CSL", Name: "Super League", Country: "China", Zone: "Asia/Shanghai"},
	"JJL": {Code: "JJL", Name: "J1 League", Country: "Japan", Zone: "Asia/Tokyo"},
	"MLS": {Code: "MLS", Name: "Major League Soccer", Country: "USA", Zone: "America/New_York"},
	"DSL": {Code: "DSL", Name: "Superliga", Country: "Denmark", Zone: "Europe/Copenhagen"},
	"FVL": {Code: "FVL", Name: "Veikkausliiga", Country: "Finland", Zone: "Europe/Helsinki"},
	"LOI": {Code: "LOI", Name: "Premier Division", Country: "Ireland", Zone: "Europe/Dublin"},
	"ELI": {Code: "ELI", Name: "Eliteserien", Country: "Norway", Zone: "Europe/Oslo"},
	"EKS": {Code: "EKS", Name: "Ekstraklasa", Country: "Poland", Zone: "Europe/Warsaw"},
	"RL1": {Code: "RL1", Name: "Liga I", Country: "Romania", Zone: "Europe/Bucharest"},
	"ALS": {Code: "ALS", Name: "Allsvenskan", Country: "Sweden", Zone: "Europe/Stockholm"},
}

// leagueOf describes code for a parser: as the stream knows it (leagues),
// else as the appendix or describedLeagues do (the writer registers it),
// else an Invalid error naming field and the code.
func leagueOf(code model.LeagueCode, field string, leagues func(model.LeagueCode) (model.League, error)) (model.League, error) {
	known, err := leagues(code)
	if model.ErrorCode(err) != model.Invalid {
		return known, err
	}
	if l, ok := model.BuiltinLeague(code); ok {
		return l, nil
	}
	if l, ok := describedLeagues[code]; ok {
		return l, nil
	}
	return model.League{}, model.Invalidf(field, string(code), "no such league code: register it with `ingest league put`")
}

// footballDataDivs map football-data.co.uk's division codes (the Div
// column, and the file names: mmz4281/2425/E0.csv) to league codes.
var footballDataDivs = map[string]model.LeagueCode{
	"E0": "PL", "E1": "ELC", "E2": "EL1", "E3": "EL2", "EC": "ENL",
	"SC0": "SPL", "SC1": "SCH", "SC2": "SL1", "SC3": "SL2",
	"D1": "BL1", "D2": "BL2", "I1": "SA", "I2": "SB", "SP1": "PD", "SP2": "SD", "F1": "FL1", "F2": "FL2",
	"N1": "DED", "B1": "BJL", "P1": "PPL", "T1": "TSL", "G1": "GSL",
}

// footballDataFolders map the league folders of datasets/football-datasets
// (football-data.co.uk's files without the Div column) to league codes.
var footballDataFolders = map[string]model.LeagueCode{
	"premier-league": "PL", "la-liga": "PD", "serie-a": "SA", "bundesliga": "BL1", "ligue-1": "FL1",
}

// footballCSVLeagues map footballcsv's file names (eng.1.csv) to league
// codes.
var footballCSVLeagues = map[string]model.LeagueCode{
	"eng.1": "PL", "eng.2": "ELC", "eng.3": "EL1", "eng.4": "EL2", "eng.5": "ENL",
	"sco.1": "SPL", "sco.2": "SCH", "sco.3": "SL1", "sco.4": "SL2",
	"de.1": "BL1", "de.2": "BL2", "es.1": "PD", "es.2": "SD", "it.1": "SA", "it.2": "SB", "fr.1": "FL1", "fr.2": "FL2",
	"nl.1": "DED", "be.1": "BJL", "pt.1": "PPL", "tr.1": "TSL", "gr.1": "GSL",
	"at.1": "ABL", "ch.1": "SSL", "ru.1": "RPL", "ar.1": "ARL", "br.1": "BSA", "mx.1": "LMX", "cn.1": "CSL", "jp.1": "JJL", "us.1": "MLS",
	"dk.1": "DSL", "fi.1": "FVL", "ie.1": "LOI", "no.1": "ELI", "pl.1": "EKS", "ro.1": "RL1", "se.1": "ALS",
}
