/**
 * Common given names and surnames: the other choices of a name slot in the grammar pass
 * (grammar.ts), so that a different name said in its place is heard as one of these rather
 * than as the expected name. bench/consent-recognition.ts draws its test names from a
 * separate list, none of them here.
 */
export const COMMON_NAMES: readonly string[] = (
  'james john robert michael william david richard joseph thomas charles christopher daniel matthew anthony mark donald ' +
  'steven paul andrew joshua kenneth kevin brian george timothy ronald edward jason jeffrey ryan jacob gary nicholas eric ' +
  'jonathan stephen larry justin scott brandon benjamin samuel gregory alexander frank patrick raymond jack dennis jerry ' +
  'tyler aaron jose adam nathan henry douglas zachary mary patricia jennifer linda elizabeth barbara susan jessica sarah ' +
  'karen lisa nancy betty margaret sandra ashley kimberly emily donna michelle carol amanda dorothy melissa deborah ' +
  'stephanie rebecca sharon laura cynthia kathleen amy angela shirley helen brenda pamela nicole samantha katherine emma ' +
  'ruth christine catherine debra rachel carolyn janet virginia heather diane julie joyce olivia kelly christina lauren ' +
  'joan evelyn judith megan andrea cheryl hannah jacqueline martha gloria teresa ann sara madison frances kathryn janice ' +
  'jean abigail alice judy sophia denise amber doris marilyn danielle beverly isabella theresa diana natalie brittany ' +
  'charlotte marie kayla alexis lori mohammed ahmed fatima wei li chen hiroshi raj priya ' +
  'smith johnson williams jones garcia davis rodriguez martinez hernandez gonzalez wilson anderson taylor moore jackson ' +
  'martin perez white harris sanchez clark ramirez lewis robinson walker young allen wright torres nguyen hill ' +
  'flores adams nelson hall rivera campbell mitchell carter roberts gomez phillips evans turner diaz cruz edwards ' +
  'collins reyes stewart morris morales murphy cook rogers gutierrez ortiz cooper bailey reed howard ramos cox ward ' +
  'richardson watson brooks chavez wood bennett mendoza ruiz hughes price alvarez castillo sanders myers ross ' +
  'foster jimenez muller schneider wagner meyer schulz bernard durand leroy bianchi romano ricci esposito'
).split(' ');
